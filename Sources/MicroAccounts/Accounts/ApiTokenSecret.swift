import Crypto
import Foundation
import MicroAuth
import MicroCore

/// The text of API tokens: `micro_` (so that secret scanners recognise one) and 256 random
/// bits in base64url; and the digest under which a store keeps one.
public enum ApiTokenSecret {
    /// What every token starts with.
    public static let prefix = "micro_"
    /// The length of a token: the prefix and 43 base64url characters.
    public static let length = prefix.utf8.count + 43

    /// A new token.
    public static func make() -> String {
        prefix + Base64Url.encode(SecureRandom.bytes(32))
    }

    /// A new opaque id for a token's entry (128 random bits).
    static func makeId() -> String {
        Base64Url.encode(SecureRandom.bytes(16))
    }

    /// Whether `text` has a token's shape (the prefix, then base64url characters of the right
    /// count): anything else is refused before a look-up.
    public static func isWellFormed(_ text: String) -> Bool {
        // The prefix is itself of base64url's alphabet: the whole text is checked at once.
        text.utf8.count == length && text.hasPrefix(prefix) && Base64Url.isAlphabet(text)
    }

    /// The SHA-256 digest of `token`, in lowercase hex: what a store keeps and looks up.
    public static func digest(of token: some StringProtocol) -> String {
        hex(SHA256.hash(data: Data(token.utf8)))
    }

    private static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
