#if OpenIdConnect
/// Where the sessions single sign-on began are noted with the provider's names for them,
/// and the logout tokens already acted on: what a back-channel logout reads.
///
/// ``MemoryProviderSessionStore`` keeps them in this process (one instance);
/// ``DatabaseProviderSessionStore`` in SQLite or PostgreSQL, so that a logout the provider
/// sends to any instance ends a session begun on another.
///
/// Every entry expires (a session's at its absolute end, a token's once the token could no
/// longer be accepted), and an implementation deletes expired entries as it adds, so that the
/// tables stay bounded without a background job.
public protocol ProviderSessionStore: Sendable {
    /// Notes `session`, begun at `now` (seconds since 1970).
    func record(_ session: ProviderSession, now: Int64) async throws
    /// Removes and returns the live sessions of `issuer` that the provider's session
    /// `providerSessionId` (when given) and the person `subject` (when given) name. At least
    /// one of the two is given. Atomic: two logouts racing return each session once.
    func take(issuer: String, providerSessionId: String?, subject: String?, now: Int64) async throws -> [ProviderSession]
    /// Notes the logout token `tokenId` of `issuer` as acted on, until `expiry`; returns
    /// false when it was noted before. Atomic: of two racing, one is first.
    func noteLogoutToken(_ tokenId: String, issuer: String, until expiry: Int64, now: Int64) async throws -> Bool
    /// Forgets the logout token `tokenId` of `issuer` noted by a logout that then failed, so
    /// that the provider's retry is acted on.
    func forgetLogoutToken(_ tokenId: String, issuer: String) async throws
}
#endif
