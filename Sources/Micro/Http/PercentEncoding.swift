/// Percent-decoding as RFC 3986 and the `application/x-www-form-urlencoded` rules define it.
enum PercentEncoding {
    /// Decodes `%XX` escapes (and `+` as a space when `plusAsSpace`).
    /// Returns nil for a malformed escape or for bytes that are not valid UTF-8.
    static func decode(_ text: Substring, plusAsSpace: Bool = false) -> String? {
        let utf8 = text.utf8
        // Fast path: nothing to decode.
        if !utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }) {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let high = utf8.index(after: index)
                guard high != utf8.endIndex else { return nil }
                let low = utf8.index(after: high)
                guard low != utf8.endIndex,
                    let h = hexValue(utf8[high]), let l = hexValue(utf8[low])
                else { return nil }
                bytes.append(h << 4 | l)
                index = utf8.index(after: low)
            } else {
                bytes.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index = utf8.index(after: index)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Whether `text`'s escapes are well-formed and decode to UTF-8 without NUL; without
    /// allocating when there is no escape (the common path).
    static func isValid(_ text: String) -> Bool {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return true }
        guard let decoded = decode(Substring(text)) else { return false }
        return !decoded.utf8.contains(0)
    }

    /// Encodes every byte outside RFC 3986's unreserved set as `%XX`.
    static func encode(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0x0F)]))
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
