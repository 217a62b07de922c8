// HTML escaping: Micro's escaper (`Html.escape`) and a value rendered in templates as the
// views render pages, against a byte-wise reference.
//
// The input is any bytes, taken as text the way the server takes a header or a body (invalid
// UTF-8 replaced). Checks: the escaped text is the reference's (each byte of `& < > " '`
// replaced by its entity, every other byte copied); no `<`, `>`, `"` or `'` byte is left and
// every `&` starts one of the five entities; unescaping gives back the input's bytes; the
// rendered templates hold exactly the reference's escaping of the value in each place.
@_spi(Fuzzing) import Micro
import FuzzSupport

private let entities: [(text: [UInt8], byte: UInt8)] = [
    (Array("&amp;".utf8), UInt8(ascii: "&")), (Array("&lt;".utf8), UInt8(ascii: "<")), (Array("&gt;".utf8), UInt8(ascii: ">")),
    (Array("&quot;".utf8), UInt8(ascii: "\"")), (Array("&#39;".utf8), UInt8(ascii: "'")),
]

/// Each byte of `& < > " '` replaced by its entity.
private func reference(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    for byte in bytes {
        if let entity = entities.first(where: { $0.byte == byte }) { out += entity.text } else { out.append(byte) }
    }
    return out
}

/// The entities turned back into their bytes; nil when an `&` starts none of them.
private func unescape(_ bytes: [UInt8]) -> [UInt8]? {
    var out: [UInt8] = []
    var index = 0
    while index < bytes.count {
        guard bytes[index] == UInt8(ascii: "&") else {
            out.append(bytes[index])
            index += 1
            continue
        }
        guard let entity = entities.first(where: { bytes[index...].starts(with: $0.text) }) else { return nil }
        out.append(entity.byte)
        index += entity.text.count
    }
    return out
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHtmlEscape(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = text(bytes(data, count))
    let inputBytes = Array(input.utf8)
    let expected = reference(inputBytes)

    let escaped = Array(Html.escape(input).utf8)
    require(escaped == expected, "Html.escape differs from the byte-wise reference for \(inputBytes)")
    require(!escaped.contains { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "'") },
        "a markup byte survives escaping: \(inputBytes)")
    require(unescape(escaped) == inputBytes, "unescaping does not give back the input: \(inputBytes)")

    do {
        let rendered = Array(try FuzzingEntryPoints.renderInTemplates(input).utf8)
        let page = expected + Array("|<a title=\"".utf8) + expected + Array("\">".utf8) + expected + Array("</a>|<b>".utf8)
            + expected + Array("</b>".utf8)
        require(rendered == page, "the templates render \(rendered) for \(inputBytes)")
    } catch {
        require(false, "the fuzzer's fixed templates do not parse: \(error)")
    }
    return 0
}

/// The entry point a debug build of the package's tests asks for (see `fuzzerMain`).
@_cdecl("FuzzHtmlEscape_main")
public func fuzzHtmlEscapeMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzzerMain(argc, argv)
}
