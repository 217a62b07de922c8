import MicroCore

/// The secret of a ``SetupLink``: 256 random bits in base64url, in the link's URL alone; and the
/// digest under which a store keeps it.
public enum SetupLinkSecret {
    /// The length of a secret: 43 base64url characters.
    public static let length = 43

    /// A new secret.
    public static func make() -> String {
        Base64Url.encode(SecureRandom.bytes(32))
    }

    /// Whether `text` has a secret's shape: anything else is refused before a look-up.
    public static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == length && Base64Url.isAlphabet(text)
    }

    /// The SHA-256 digest of `text`, in lowercase hex: of a secret, what a store keeps; of a
    /// password hash, what a link remembers of it.
    public static func digest(of text: some StringProtocol) -> String {
        ApiTokenSecret.digest(of: text)
    }
}
