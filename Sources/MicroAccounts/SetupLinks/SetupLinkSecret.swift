import Crypto
import Foundation
import MicroCore

/// The secret of a ``SetupLink``: 256 random bits in base64url, in the link's URL alone; and the
/// digest under which a store keeps it.
public enum SetupLinkSecret {
    /// The length of a secret: 43 base64url characters.
    public static let length = 43

    /// A new secret.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64Url.encode((0..<32).map { _ in UInt8.random(in: 0 ... .max, using: &generator) })
    }

    /// Whether `text` has a secret's shape: anything else is refused before a look-up.
    public static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == length && text.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    /// The SHA-256 digest of `text`, in lowercase hex: of a secret, what a store keeps; of a
    /// password hash, what a link remembers of it.
    public static func digest(of text: some StringProtocol) -> String {
        ApiTokenSecret.digest(of: text)
    }
}
