// The `Cookie` request header parser, and `Set-Cookie` values it must read back.
//
// Checks: no crash; parsed names are non-empty; values hold no `;`; a cookie written with any
// name and value (and hostile path and domain) is one header line of printable ASCII whose
// first pair reads back (as Request.cookie reads it) as that name and value, and whose other
// pairs are only the attributes it was given.
@_spi(Fuzzing) import Micro
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCookies(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = bytes(data, count)

    // Several header values, one a line.
    let headers = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { text(Array($0)) }
    for cookie in FuzzingEntryPoints.cookies(headers) {
        require(!cookie.name.isEmpty, "an empty cookie name")
        require(!cookie.value.utf8.contains(UInt8(ascii: ";")), "a value holds ;")
    }

    // name NUL value NUL path NUL domain
    let fields = input.split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false).map { text(Array($0)) }
    let name = fields[0]
    let value = fields.count > 1 ? fields[1] : ""
    let cookie = Cookie(
        name: name, value: value, path: fields.count > 2 ? fields[2] : "/",
        domain: fields.count > 3 ? fields[3] : nil, maxAge: count % 3 == 0 ? nil : count - 100,
        secure: count % 2 == 0, sameSite: count % 5 == 0 ? nil : .strict)
    let header = cookie.headerValue
    require(header.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }, "Set-Cookie holds a control or non-ASCII byte: \(header)")
    guard !name.isEmpty else { return 0 }
    let parsed = FuzzingEntryPoints.cookies([header])
    guard let first = parsed.first else {
        require(false, "a written cookie does not parse: \(header)")
        return 0
    }
    // What Request.cookie(_:) does with a value holding an escape (names come decoded).
    let readValue = first.value.utf8.contains(UInt8(ascii: "%"))
        ? FuzzingEntryPoints.percentDecode(first.value, plusAsSpace: false) : first.value
    require(first.name == name && readValue == value,
        "cookie \(name)=\(value) read back as \(first.name)=\(first.value) from \(header)")
    let attributes = parsed.dropFirst().map { $0.name }
    require(attributes.allSatisfy { ["Path", "Domain", "Max-Age", "SameSite"].contains($0) },
        "a written cookie carries an attribute it was not given: \(header)")
    return 0
}

/// The entry point a debug build of the package's tests asks for (see `fuzzerMain`).
@_cdecl("FuzzCookies_main")
public func fuzzCookiesMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzzerMain(argc, argv)
}
