/// The bounds every ``ActivityLog`` keeps.
public enum ActivityLogLimits {
    /// How long events are kept: 90 days.
    public static let retention: Duration = .seconds(90 * 86_400)
    /// Events shown per page.
    public static let pageSize = 100

    /// ``retention`` in the seconds events are stamped with.
    package static let retentionSeconds = retention.components.seconds
}
