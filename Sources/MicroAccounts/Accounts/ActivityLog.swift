import MicroAuth
import MicroCore

/// Where account events are kept, for the activity page and the admin's audit.
///
/// An implementation keeps events for ``ActivityLogLimits/retention`` at most and no more than
/// its row limit, dropping the oldest first. Failed sign-ins under names that are no user
/// (``ActivityEvent/unknownUser``), which anyone can send from many addresses, are kept apart
/// within a limit of their own: they never push the accounts' events out.
public protocol ActivityLog: Sendable {
    /// Records `event`.
    func record(_ event: ActivityEvent) async throws
    /// The newest events, newest first: `username`'s only when given (the unknown user's are
    /// those kept apart), else every account's (not the unknown user's). At most `limit`,
    /// after skipping the `offset` newest.
    func events(of username: String?, offset: Int, limit: Int) async throws -> [ActivityEvent]
    /// Marks every event kept so far for `username` as an earlier account's, ended at `at`
    /// (``ActivityEvent/accountEndedAt``): done when the user is removed and when the name is
    /// given to a new user, so that a new user of the name starts clean.
    func endAccount(of username: String, at: Int64) async throws
    /// Moves the current account's events of `username` (not an ended account's) to
    /// `newName`: the user was renamed, and their history goes with them. In a
    /// ``/MicroCore/Database``, inside any transaction the caller has open on it.
    func rename(_ username: String, to newName: String) async throws
}
