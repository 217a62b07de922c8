import MicroCore

/// The failed sign-ins a shared ``SignInThrottleStore`` counted for one username and one client
/// address: what every instance of the app sees.
public struct SignInFailures: Sendable, Equatable {
    /// The failures of one window.
    public struct Count: Sendable, Equatable {
        /// When the window began: its first failure (seconds since 1970).
        public var windowStart: Int64
        /// The failures counted since.
        public var failures: Int

        /// A count.
        public init(windowStart: Int64, failures: Int) {
            self.windowStart = windowStart
            self.failures = failures
        }
    }

    /// The username's count; nil when none is live.
    public var username: Count?
    /// The address's count; nil when none is live.
    public var address: Count?

    /// The counts.
    public init(username: Count? = nil, address: Count? = nil) {
        self.username = username
        self.address = address
    }
}
