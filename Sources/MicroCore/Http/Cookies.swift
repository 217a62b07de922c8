import NIOHTTP1

/// Parsing of `Cookie` request headers.
enum Cookies {
    /// The name/value pairs of `Cookie` header values (`a=1; b=2`). Pairs without `=` are
    /// skipped; values in double quotes lose their quotes; names are percent-decoded (as
    /// ``Cookie/headerValue`` encodes them), values are left for ``Request/cookie(_:)``.
    /// Works on UTF-8 bytes: cookies are long (a session is hundreds of bytes) and read on
    /// every request.
    static func parse<S: StringProtocol>(_ headerValues: [S]) -> [(name: String, value: String)] {
        var cookies: [(name: String, value: String)] = []
        for header in headerValues {
            // Over the header's own storage: a copy into an array and its checked indexing cost
            // tens of instructions a byte.
            let parsed: Void? = header.utf8.withContiguousStorageIfAvailable { bytes in
                parse(bytes, into: &cookies)
            }
            if parsed == nil { Array(header.utf8).withUnsafeBufferPointer { parse($0, into: &cookies) } }
        }
        return cookies
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, into cookies: inout [(name: String, value: String)]) {
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: ";") { end += 1 }
            if let equals = bytes[start..<end].firstIndex(of: UInt8(ascii: "=")) {
                let name = trimmed(bytes[start..<equals])
                var value = trimmed(bytes[(equals + 1)..<end])
                if value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") {
                    value = value.dropFirst().dropLast()
                }
                if !name.isEmpty {
                    var text = String(decoding: name, as: UTF8.self)
                    if name.contains(UInt8(ascii: "%")) { text = PercentEncoding.decode(Substring(text)) ?? text }
                    cookies.append((text, String(decoding: value, as: UTF8.self)))
                }
            }
            start = end + 1
        }
    }

    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        var slice = bytes
        while let first = slice.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { slice = slice.dropFirst() }
        while let last = slice.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { slice = slice.dropLast() }
        return slice
    }
}
