import Crypto
import Foundation
import MicroAuth
import MicroCore

/// Recovery codes: ten random codes of 50 bits each (`k7m2q-x4pzd`), shown once and kept only
/// as digests keyed with the ``DataKey``, each good for one sign-in instead of a TOTP code.
enum RecoveryCodes {
    /// How many a user gets.
    static let count = 10
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    /// `count` new codes, as shown.
    static func make() -> [String] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in
            let characters = (0..<10).map { _ in alphabet[Int.random(in: 0..<32, using: &generator)] }
            return String(decoding: characters[..<5], as: UTF8.self) + "-" + String(decoding: characters[5...], as: UTF8.self)
        }
    }

    /// The form of `typed` that is kept: lowercase, without spaces and dashes; nil for anything
    /// no code can be.
    static func normalized(_ typed: String) -> String? {
        guard typed.utf8.count <= 64 else { return nil }
        let kept = typed.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "-") }.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
        guard kept.count == 10, kept.allSatisfy(alphabet.contains) else { return nil }
        return String(decoding: kept, as: UTF8.self)
    }

    /// What is kept of a code of `username`: ``keyedPrefix`` and an HMAC, under a subkey of the
    /// data key, of the code's ``unkeyedDigest(_:of:)``. A copy of the database alone gives no
    /// way to try the 2^50 codes offline; and rows kept unkeyed by an earlier version are keyed
    /// in place (``TwoFactorStore/keyUnkeyedCodes(with:)``) without knowing the codes.
    static func digest(_ normalized: String, of username: String, key: DataKey) -> String {
        keyedPrefix + key.recoveryCodeDigest(unkeyedHash(normalized, of: username))
    }

    /// What marks a keyed digest: unkeyed ones are bare base64url, which has no `.`.
    static let keyedPrefix = "h1."

    /// The digest an earlier version kept: SHA-256 of the code and its user's name, in
    /// base64url (the name keeps equal codes of two users apart).
    static func unkeyedDigest(_ normalized: String, of username: String) -> String {
        Base64Url.encode(unkeyedHash(normalized, of: username))
    }

    private static func unkeyedHash(_ normalized: String, of username: String) -> [UInt8] {
        Array(SHA256.hash(data: Data("micro recovery code \(username) \(normalized)".utf8)))
    }
}
