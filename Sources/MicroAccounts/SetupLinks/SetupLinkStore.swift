import MicroCore

/// Where ``SetupLink``s are kept: in memory (``MemorySetupLinkStore``, one instance) or in a
/// database (``DatabaseSetupLinkStore``, shared by every instance). A user has at most one link:
/// adding one removes the older, so the table holds no more links than users.
public protocol SetupLinkStore: Sendable {
    /// Keeps `link` in place of any other of its user's; expired links go too.
    func add(_ link: SetupLink, now: Int64) async throws
    /// The live link of `digest`, without using it (its page's form is shown).
    func find(digest: String, now: Int64) async throws -> SetupLink?
    /// Removes and returns the live link of `digest`: of two posts racing, on one instance or
    /// two, one gets it.
    func take(digest: String, now: Int64) async throws -> SetupLink?
    /// Removes every link of `username` (removed, disabled, or given a password).
    func removeAll(of username: String) async throws
    /// Moves every link of `username` to `newName` (the user was renamed): a link given
    /// before sets the password of the renamed user. In a ``/MicroCore/Database``, inside any
    /// transaction the caller has open on it.
    func rename(_ username: String, to newName: String) async throws
    /// Counts one reset message to `username` at `now`, unless `limit` were counted in the
    /// `window` seconds before it: whether it counted it. Of many requests at once, on one
    /// instance or several, no more than `limit` are counted in any window.
    func countReset(of username: String, now: Int64, limit: Int, window: Int64) async throws -> Bool
}
