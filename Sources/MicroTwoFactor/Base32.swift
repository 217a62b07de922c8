import MicroAuth
import MicroCore

/// Base32 (RFC 4648, the alphabet `A`-`Z`, `2`-`7`): how authenticator apps take a secret.
public enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// `bytes` in base32, with `=` padding to a multiple of 8 characters when `padded`
    /// (`otpauth` URIs leave it out).
    public static func encode(_ bytes: [UInt8], padded: Bool = true) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 4) / 5 * 8)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        if padded { while output.count % 8 != 0 { output.append(UInt8(ascii: "=")) } }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes `text` encodes: letters of either case, padding optional, spaces ignored (as
    /// a secret is shown in groups). Nil for any other character, a misplaced `=`, or a length
    /// no encoding has.
    public static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        var padding = 0
        for character in text.utf8 where character != UInt8(ascii: " ") {
            if character == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard padding == 0 else { return nil }
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): values.append(character - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): values.append(character - UInt8(ascii: "a"))
            case UInt8(ascii: "2")...UInt8(ascii: "7"): values.append(character - UInt8(ascii: "2") + 26)
            default: return nil
            }
        }
        // A group of 8 characters carries 5 bytes; a last, shorter group has 2, 4, 5 or 7.
        guard [0, 2, 4, 5, 7].contains(values.count % 8), padding == 0 || (values.count + padding) % 8 == 0 else { return nil }
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for value in values {
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                output.append(UInt8((buffer >> UInt32(bits - 8)) & 0xff))
                bits -= 8
            }
        }
        // The leftover bits must be zero: otherwise two texts would name one secret.
        guard buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return output
    }
}
