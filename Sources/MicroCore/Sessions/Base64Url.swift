import Crypto

/// Base64 with the URL and cookie safe alphabet (`-` and `_`), without padding (RFC 4648,
/// section 5). Written on bytes: Foundation's string replacements cost a hundred microseconds
/// per session cookie on Linux.
public enum Base64Url {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// Whether every byte of `text` is one of the alphabet's 64 characters (a cookie's value is
    /// checked on every request; a token's before any look-up).
    public static func isAlphabet(_ text: String) -> Bool {
        ByteScan.allSatisfy(text, in: inAlphabet)
    }

    private static let inAlphabet: [Bool] = values.map { $0 != 0xFF }

    /// The text of `bytes`.
    public static func encode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let input = Array(bytes)
        var output = [UInt8]()
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            output.append(alphabet[Int(chunk >> 6 & 63)])
            output.append(alphabet[Int(chunk & 63)])
            index += 3
        }
        let rest = input.count - index
        if rest == 1 {
            let chunk = UInt32(input[index]) << 16
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
        } else if rest == 2 {
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            output.append(alphabet[Int(chunk >> 6 & 63)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes `text` encodes; nil unless `text` is exactly what ``encode(_:)`` makes of them.
    ///
    /// Only the canonical form is accepted: the spare low bits of the last character must be
    /// zero, so that no two texts decode to the same bytes and a changed cookie or token is never
    /// taken for the one the app issued.
    public static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 != 1 else { return nil }
        var output = [UInt8]()
        output.reserveCapacity(input.count * 3 / 4)
        var index = 0
        while index + 4 <= input.count {
            let a = values[Int(input[index])], b = values[Int(input[index + 1])]
            let c = values[Int(input[index + 2])], d = values[Int(input[index + 3])]
            guard a | b | c | d != 0xFF, a < 64, b < 64, c < 64, d < 64 else { return nil }
            let chunk = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
            output.append(UInt8(chunk >> 16 & 0xFF))
            output.append(UInt8(chunk >> 8 & 0xFF))
            output.append(UInt8(chunk & 0xFF))
            index += 4
        }
        let rest = input.count - index
        if rest == 2 {
            let a = values[Int(input[index])], b = values[Int(input[index + 1])]
            guard a < 64, b < 64, b & 0x0F == 0 else { return nil }
            output.append(a << 2 | b >> 4)
        } else if rest == 3 {
            let a = values[Int(input[index])], b = values[Int(input[index + 1])], c = values[Int(input[index + 2])]
            guard a < 64, b < 64, c < 64, c & 0x03 == 0 else { return nil }
            output.append(a << 2 | b >> 4)
            output.append((b & 0x0F) << 4 | c >> 2)
        }
        return output
    }
}
