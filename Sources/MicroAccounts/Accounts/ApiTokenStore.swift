import MicroAuth
import MicroCore

/// Where users' API tokens are kept (as digests): ``DatabaseApiTokenStore`` for an app whose
/// users are in a table, ``MemoryApiTokenStore`` for tests.
///
/// An implementation keeps at most ``ApiTokenLimits/perUser`` live tokens per user (revoked
/// and expired ones do not count) and drops revoked and expired ones as tokens are added, so
/// that its size stays bounded.
public protocol ApiTokenStore: Sendable {
    /// Adds `token` unless its user already has `limit` live tokens at `now`; whether it was
    /// added.
    func add(_ token: ApiToken, limit: Int, now: Int64) async throws -> Bool
    /// The token whose digest is `digest`, live or not; nil when none is.
    func token(digest: String) async throws -> ApiToken?
    /// The live tokens of `username` at `now`, newest first.
    func tokens(of username: String, now: Int64) async throws -> [ApiToken]
    /// The live tokens of every user at `now`, for the admin's users page.
    func liveTokens(now: Int64) async throws -> [ApiToken]
    /// Revokes the live token `id` of `username`; returns it, or nil when `username` has no
    /// such live token.
    func revoke(id: String, of username: String, now: Int64) async throws -> ApiToken?
    /// Notes that the token `id` was used at `now`, unless that was noted less than
    /// ``ApiTokenLimits/touchInterval`` before.
    func touch(id: String, now: Int64) async throws
    /// Deletes every token of `username`: the user was removed, and a later user of the same
    /// name must not inherit them.
    func removeAll(of username: String) async throws
    /// Moves every token of `username` to `newName` (the user was renamed): the same tokens
    /// work under the new name. In a ``/MicroCore/Database``, inside any transaction the caller
    /// has open on it.
    func rename(_ username: String, to newName: String) async throws
}

/// The bounds every ``ApiTokenStore`` and the token pages keep.
public enum ApiTokenLimits {
    /// The most live tokens per user.
    public static let perUser = 50
    /// How often a token's "last used" is written at most, in seconds.
    public static let touchInterval: Int64 = 60
    /// The expiries a user may choose, in days.
    public static let days = 1...365
    /// The expiry when the form names none, in days.
    public static let defaultDays = 90
    /// The longest name, in characters (and four times that in UTF-8 bytes).
    public static let nameLength = 64
    /// The most scopes a token has, the built-in one included.
    public static let scopesPerToken = 16
    /// The most scopes an app declares of its own (``ApiTokenSettings/scopes``).
    public static let declaredScopes = 32
}
