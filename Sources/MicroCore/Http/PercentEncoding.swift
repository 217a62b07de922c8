/// Percent-encoding and decoding as RFC 3986 and the `application/x-www-form-urlencoded` rules
/// define them.
public enum PercentEncoding {
    /// Decodes `%XX` escapes (and `+` as a space when `plusAsSpace`).
    /// Returns nil for a malformed escape or for bytes that are not valid UTF-8.
    static func decode(_ text: Substring, plusAsSpace: Bool = false) -> String? {
        if let decoded = text.utf8.withContiguousStorageIfAvailable({ decode($0, plusAsSpace: plusAsSpace) }) {
            return decoded
        }
        var copy = String(text)
        return copy.withUTF8 { decode($0, plusAsSpace: plusAsSpace) }
    }

    /// Decodes `%XX` escapes (and `+` as a space when `plusAsSpace`) in `bytes`, by bytes.
    /// Returns nil for a malformed escape or when the result is not valid UTF-8.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, plusAsSpace: Bool = false) -> String? {
        // Fast path: nothing to decode.
        if !bytes.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }) {
            return String(validating: bytes, as: UTF8.self)
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else {
                    return nil
                }
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(validating: decoded, as: UTF8.self)
    }

    /// Whether `text`'s escapes are well-formed and decode to UTF-8 without NUL; without
    /// allocating when there is no escape (the common path).
    static func isValid(_ text: String) -> Bool {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return true }
        guard let decoded = decode(Substring(text)) else { return false }
        return !decoded.utf8.contains(0)
    }

    /// Encodes every byte outside RFC 3986's unreserved set (or outside `keep`) as `%XX`.
    public static func encode(_ text: String, keeping keep: (UInt8) -> Bool = isUnreserved) -> String {
        guard !text.utf8.allSatisfy(keep) else { return text }
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 8)
        for byte in text.utf8 {
            if keep(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// RFC 3986's unreserved characters: letters, digits, `-`, `.`, `_`, `~`.
    public static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// The byte that the `%XX` escape at the start of `bytes` stands for; nil when `bytes` does
    /// not start with one.
    package static func escapedByte(atStartOf bytes: some Collection<UInt8>) -> UInt8? {
        var iterator = bytes.makeIterator()
        guard iterator.next() == UInt8(ascii: "%"), let high = iterator.next().flatMap(hexValue),
            let low = iterator.next().flatMap(hexValue)
        else { return nil }
        return high << 4 | low
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
