/// Where account events are kept, for the activity page and the admin's audit.
///
/// An implementation keeps events for ``ActivityLogLimits/retention`` at most and no more than
/// its row limit, dropping the oldest first, so that clients who never sign in cannot grow it
/// without bound.
public protocol ActivityLog: Sendable {
    /// Records `event`.
    func record(_ event: ActivityEvent) async throws
    /// The newest events, newest first (`username`'s only, when given): at most `limit`, after
    /// skipping the `offset` newest.
    func events(of username: String?, offset: Int, limit: Int) async throws -> [ActivityEvent]
}

/// The bounds every ``ActivityLog`` keeps.
public enum ActivityLogLimits {
    /// How long events are kept: 90 days.
    public static let retention: Int64 = 90 * 86_400
    /// Events shown per page.
    public static let pageSize = 100
}
