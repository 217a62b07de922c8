/// What ends sessions before their time, even though their cookies still open: a sign-out, a
/// "sign out everywhere" for one user, everyone at once.
///
/// Checked in memory on every request that carries a session, so an implementation answers
/// from memory and never waits on I/O; one that shares revocations between instances (a
/// database) updates that memory when another instance revokes. The default is
/// ``MemorySessionRevocations``.
public protocol SessionRevocations: Sendable {
    /// Ends the session `id` (its cookie, replayed from anywhere, no longer opens). The entry is
    /// needed until `expiry`, the session's absolute end, and may be forgotten after it; `now`
    /// is the app's clock (seconds since 1970).
    func revoke(id: String, until expiry: Int64, now: Int64)
    /// Ends every session of `username` that began at or before `time` (seconds since 1970).
    /// The entry is needed until `expiry`, the absolute end of the last such session.
    func revokeSessions(of username: String, at time: Int64, until expiry: Int64, now: Int64)
    /// Ends every session that began at or before `time`.
    func revokeAll(at time: Int64)
    /// Whether the session `id`, begun at `created`, was revoked by itself or with everyone's.
    func isRevoked(id: String, created: Int64) -> Bool
    /// Whether the sessions of `username` begun at `created` were revoked.
    func isRevoked(username: String, created: Int64) -> Bool
}
