import MicroCore

/// A link that lets one person choose their password once: made by an admin (an invitation, or
/// "Send set-up link" on the users page), by `add-user --invite`, or by "forgot password". Its
/// secret is in the URL only; a store keeps its digest (``SetupLinkSecret/digest(of:)``).
///
/// It opens nothing once used, past ``expiresAt``, once a newer link of the user is made, or
/// once the user's password hash is not the one it was made for (``hashDigest``): a user who
/// was disabled, removed and added again, or given a password meanwhile.
public struct SetupLink: Sendable, Equatable {
    /// What the link is for: the words its pages and the audit use.
    public enum Purpose: String, Sendable {
        /// A first password, or one an admin asked the user to choose anew.
        case setup
        /// A password forgotten: the user asked for the link by mail.
        case reset
    }

    /// The SHA-256 digest of the secret, in lowercase hex.
    public var digest: String
    /// The user, in their enforced form.
    public var username: String
    /// What the link is for.
    public var purpose: Purpose
    /// The digest of the password hash the user had when it was made (``SetupLinkSecret/digest(of:)``).
    public var hashDigest: String
    /// When it was made and when it stops opening, in seconds since 1970.
    public var createdAt: Int64
    public var expiresAt: Int64

    /// A link.
    public init(digest: String, username: String, purpose: Purpose, hashDigest: String, createdAt: Int64, expiresAt: Int64) {
        self.digest = digest
        self.username = username
        self.purpose = purpose
        self.hashDigest = hashDigest
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// A new link of `username`, whose password hash is now `passwordHash`, opening from `now`
    /// for `lifetime`, and its secret (for the URL only).
    static func make(for username: String, passwordHash: String, purpose: Purpose, now: Int64, lifetime: Duration) -> (link: SetupLink, secret: String) {
        let secret = SetupLinkSecret.make()
        let link = SetupLink(
            digest: SetupLinkSecret.digest(of: secret), username: username, purpose: purpose,
            hashDigest: SetupLinkSecret.digest(of: passwordHash), createdAt: now, expiresAt: now + lifetime.components.seconds)
        return (link, secret)
    }
}
