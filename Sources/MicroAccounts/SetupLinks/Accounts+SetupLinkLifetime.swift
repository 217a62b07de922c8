import MicroCore

extension Accounts {
    /// The shortest and longest lifetime a set-up link may be given: a minute, thirty days.
    public static let setupLinkLifetimes: ClosedRange<Int64> = 60...2_592_000
    /// The lifetime a set-up link has unless the app gives another: 72 hours.
    public static let defaultSetupLinkLifetime: Duration = .seconds(259_200)

    /// The lifetime `MICRO_SETUP_LINK_LIFETIME` sets in `environment` (seconds), else the
    /// default (``defaultSetupLinkLifetime``); an error naming the variable when it is not a whole
    /// number of seconds in ``setupLinkLifetimes``.
    public static func setupLinkLifetime(_ environment: [String: String]) throws(ConfigurationError) -> Duration {
        guard let raw = environment["MICRO_SETUP_LINK_LIFETIME"], !raw.isEmpty else { return defaultSetupLinkLifetime }
        guard let seconds = Int64(raw), setupLinkLifetimes.contains(seconds) else {
            throw ConfigurationError(
                "MICRO_SETUP_LINK_LIFETIME is '\(ControlEscapingLogHandler.escape(String(raw.prefix(64))))'; it must be a whole number of seconds from \(setupLinkLifetimes.lowerBound) to \(setupLinkLifetimes.upperBound) (259200 is 72 hours).")
        }
        return .seconds(seconds)
    }
}
