// Query strings, urlencoded form bodies and percent-decoding.
//
// Checks: no crash; a malformed escape is a thrown 400; decoded pairs re-encode and decode
// back to the same pairs; percent-encoding any text decodes back to it; decoding never
// lengthens; text without escapes decodes to itself; the path check agrees with decoding.
@_spi(Fuzzing) import Micro
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFormDecoding(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = text(bytes(data, count))

    do {
        let pairs = try FuzzingEntryPoints.urlEncoded(input)
        require(pairs.count <= input.utf8.count(where: { $0 == UInt8(ascii: "&") }) + 1, "more pairs than fields")
        for pair in pairs {
            require(!pair.name.isEmpty, "a pair with an empty name")
        }
        let encoded = pairs.map { FuzzingEntryPoints.percentEncode($0.name) + "=" + FuzzingEntryPoints.percentEncode($0.value) }
            .joined(separator: "&")
        let again = try FuzzingEntryPoints.urlEncoded(encoded)
        require(again.map(\.name) == pairs.map(\.name) && again.map(\.value) == pairs.map(\.value),
            "pairs do not survive re-encoding: \(pairs) -> \(encoded) -> \(again)")
    } catch {
        require(error.status == .badRequest, "a form decoding error other than 400: \(error)")
        require(input.utf8.contains(UInt8(ascii: "%")), "refused without any escape: \(error)")
    }

    for plusAsSpace in [false, true] {
        let decoded = FuzzingEntryPoints.percentDecode(input, plusAsSpace: plusAsSpace)
        if let decoded {
            require(decoded.utf8.count <= input.utf8.count, "decoding lengthened the text")
        }
        if !input.utf8.contains(UInt8(ascii: "%")) && !(plusAsSpace && input.utf8.contains(UInt8(ascii: "+"))) {
            require(decoded == input, "text without escapes changed by decoding")
        }
        let encoded = FuzzingEntryPoints.percentEncode(input)
        require(encoded.utf8.allSatisfy { $0 < 0x80 && $0 > 0x20 }, "encoding left a control, space or non-ASCII byte")
        require(FuzzingEntryPoints.percentDecode(encoded, plusAsSpace: plusAsSpace) == input, "encode/decode round trip failed")
    }

    let plain = FuzzingEntryPoints.percentDecode(input, plusAsSpace: false)
    let valid = FuzzingEntryPoints.isValidPath(input)
    require(valid == (plain.map { !$0.utf8.contains(0) } ?? false) || !input.utf8.contains(UInt8(ascii: "%")),
        "the path check disagrees with decoding")
    return 0
}

/// The entry point a debug build of the package's tests asks for (see `fuzzerMain`).
@_cdecl("FuzzFormDecoding_main")
public func fuzzFormDecodingMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzzerMain(argc, argv)
}
