import MicroAuth
import MicroCore

/// A user's API token as a store keeps it: never the token itself, only its SHA-256 digest,
/// by which a request's token is looked up.
public struct ApiToken: Sendable, Equatable {
    /// An opaque id that names the token on the tokens page: it opens nothing.
    public var id: String
    /// The SHA-256 digest of the token, in lowercase hex (``ApiTokenSecret/digest(of:)``).
    public var digest: String
    /// Whose token it is.
    public var username: String
    /// What its owner called it.
    public var name: String
    /// When it was made (seconds since 1970).
    public var createdAt: Int64
    /// When a request last used it, noted at most once per ``ApiTokenLimits/touchInterval``;
    /// 0 when never.
    public var lastUsedAt: Int64
    /// When it stops working.
    public var expiresAt: Int64
    /// When it was revoked; 0 while it is not.
    public var revokedAt: Int64
    /// What it may do (``ApiTokenScope``): ``/MicroAuth/ScopeName/read`` or
    /// ``/MicroAuth/ScopeName/write`` first, then the app's own scopes it was made with.
    public var scopes: [String]

    /// A token record; one made without `scopes` is read-only, so that a store that keeps no
    /// scopes fails closed.
    public init(
        id: String, digest: String, username: String, name: String, createdAt: Int64, lastUsedAt: Int64 = 0, expiresAt: Int64,
        revokedAt: Int64 = 0, scopes: [String] = [ScopeName.read]
    ) {
        self.id = id
        self.digest = digest
        self.username = username
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.scopes = scopes
    }

    /// Whether it still opens anything at `now`: not revoked, not expired.
    public func isLive(at now: Int64) -> Bool {
        revokedAt == 0 && now < expiresAt
    }

    /// Whether it may change things (it has ``/MicroAuth/ScopeName/write``), not only read.
    public var canWrite: Bool { scopes.contains(ScopeName.write) }
}
