/// What ends sessions before their time, even though their cookies still open: a sign-out, a
/// "sign out everywhere" for one user, everyone at once.
///
/// Checked in memory on every request that carries a session, so an implementation answers
/// from memory and never waits on I/O; one that shares revocations between instances (a
/// database) updates that memory when another instance revokes. The default is
/// ``MemorySessionRevocations``.
///
/// A revocation by user or of everyone ends the sessions begun at or before its instant, and
/// sessions and revocations are timed in milliseconds since 1970
/// (``SessionData/createdMilliseconds``). The instants come from here as well
/// (``beginning(at:)``, and what the revocations return), so that on one instance a session
/// begun after a revocation is never taken for one begun before it, however coarse the clock:
/// the clock alone cannot order two events in the same tick. Expiries and `now` are seconds.
public protocol SessionRevocations: Sendable {
    /// Ends the session `id` (its cookie, replayed from anywhere, no longer opens). The entry is
    /// needed until `expiry`, the session's absolute end, and may be forgotten after it; `now`
    /// is the app's clock (seconds since 1970).
    func revoke(id: String, until expiry: Int64, now: Int64)
    /// Ends every session of `username` begun at or before `time` (milliseconds since 1970),
    /// and every one begun here before this call, should the clock not have passed `time` yet;
    /// returns the instant it took effect at. The entry is needed until `expiry` (seconds), the
    /// absolute end of the last such session.
    @discardableResult
    func revokeSessions(of username: String, at time: Int64, until expiry: Int64, now: Int64) -> Int64
    /// Ends every session begun at or before `time` (milliseconds since 1970), and every one
    /// begun here before this call; returns the instant it took effect at.
    @discardableResult
    func revokeAll(at time: Int64) -> Int64
    /// Whether the session `id`, begun at `created` (milliseconds since 1970), was revoked by
    /// itself or with everyone's.
    func isRevoked(id: String, created: Int64) -> Bool
    /// Whether the sessions of `username` begun at `created` (milliseconds since 1970) were
    /// revoked.
    func isRevoked(username: String, created: Int64) -> Bool
    /// The instant (milliseconds since 1970) a session beginning at `now` begins at: `now`, or
    /// just after the latest revocation known here when the clock has not passed it, so that no
    /// revocation made before the session began ends it.
    func beginning(at now: Int64) -> Int64
}
