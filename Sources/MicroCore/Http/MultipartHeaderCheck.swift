import NIOCore

/// A guard in front of MultipartKit's parser, which (in 4.7.1) traps on a byte above 0x7F in a
/// part's header name: it looks the byte up in a 128-entry table. One such request would stop
/// the whole server, so such a body is refused before the parser sees it.
enum MultipartHeaderCheck {
    /// Whether a part's header name in `body` holds a byte above 0x7F, or a header block holds
    /// the delimiter (RFC 2046 forbids the boundary inside a part). Header names are where the
    /// parser reads them: at the start of each line of a header block, which begins after
    /// `--boundary` CRLF and ends at an empty line. Linear in the body's size.
    static func isRefused(_ body: ByteBuffer, boundary: String) -> Bool {
        let opener = Array("--\(boundary)\r\n".utf8)
        return body.withUnsafeReadableBytes { bytes in
            var searchFrom = 0
            var scannedUpTo = 0
            while let start = find(opener, in: bytes, from: searchFrom) {
                if start < scannedUpTo { return true }
                var position = start + opener.count
                var inName = true
                scan: while position < bytes.count {
                    let byte = bytes[position]
                    if inName {
                        if byte == UInt8(ascii: ":") {
                            inName = false
                        } else if byte >= 0x80 {
                            return true
                        } else if byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") {
                            break scan  // the empty line that ends the headers (or a syntax error)
                        }
                    } else if byte == UInt8(ascii: "\r") {
                        guard position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "\n") else { break scan }
                        position += 1
                        inName = true
                    }
                    position += 1
                }
                scannedUpTo = position
                searchFrom = start + 1
            }
            return false
        }
    }

    private static func find(_ needle: [UInt8], in haystack: UnsafeRawBufferPointer, from: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var index = from
        while index <= haystack.count - needle.count {
            if haystack[index] == first {
                var offset = 1
                while offset < needle.count, haystack[index + offset] == needle[offset] { offset += 1 }
                if offset == needle.count { return index }
            }
            index += 1
        }
        return nil
    }
}
