/// Limits failed sign-ins: per username (5 in 15 minutes by default) and per client address
/// (20 in 15 minutes; an IPv6 client's /64 counts as one address). Past a limit, attempts are
/// refused until the window has passed, right password or not; a success clears the
/// username's count.
///
/// A pure state machine over the times it is given, so tests drive it with a fake clock. Its
/// memory is bounded: at most `capacity` usernames and as many addresses are tracked; when
/// full, entries whose window has passed go first, then the stalest.
public final class SignInThrottle: Sendable {
    /// The limits.
    public struct Limits: Sendable {
        /// Failed sign-ins allowed for one username within the window.
        public var failuresPerUsername = 5
        /// Failed sign-ins allowed from one client address within the window.
        public var failuresPerAddress = 20
        /// The window, in seconds (15 minutes).
        public var window: Int64 = 15 * 60
        /// How many usernames (and, separately, addresses) are tracked at most.
        public var capacity = 10_000

        /// The defaults.
        public init() {}
    }

    private struct Counter {
        /// Failure times within the window, oldest first; at most the limit's number.
        var failures: [Int64] = []
    }

    private struct State {
        var usernames: [String: Counter] = [:]
        var addresses: [String: Counter] = [:]
    }

    /// The limits in force.
    public let limits: Limits
    private let state = Locked(State())

    /// A throttle with `limits`.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// What failures from the client at `address` count under: an IPv4 address itself, an IPv6
    /// address's /64 network (one subscriber usually holds a whole /64 and can send from any
    /// address in it).
    static func addressKey(_ address: String) -> String {
        guard let parsed = IpAddress(address), parsed.bytes.count == 16 else { return address }
        return IpAddress(bytes: Array(parsed.bytes[..<8]) + Array(repeating: 0, count: 8)).text + "/64"
    }

    /// Seconds until an attempt for `username` from `address` is allowed; nil when it is now.
    public func retryAfter(username: String, address: String?, now: Int64) -> Int64? {
        state.withLock { state in
            var wait: Int64?
            if let counter = state.usernames[username.lowercased()] {
                wait = blockedFor(counter, limit: limits.failuresPerUsername, now: now)
            }
            if let address, let counter = state.addresses[Self.addressKey(address)],
                let addressWait = blockedFor(counter, limit: limits.failuresPerAddress, now: now)
            {
                wait = max(wait ?? 0, addressWait)
            }
            return wait
        }
    }

    /// Counts a failed sign-in.
    public func recordFailure(username: String, address: String?, now: Int64) {
        state.withLock { state in
            record(in: &state.usernames, key: username.lowercased(), limit: limits.failuresPerUsername, now: now)
            if let address {
                record(in: &state.addresses, key: Self.addressKey(address), limit: limits.failuresPerAddress, now: now)
            }
        }
    }

    /// After a successful sign-in: clears the username's failures, and takes back the attempt
    /// counted for the address when the check began (see ``recordFailure(username:address:now:)``:
    /// attempts are counted before the slow password check, so parallel guesses cannot slip
    /// past the limit).
    public func recordSuccess(username: String, address: String?) {
        state.withLock { state in
            state.usernames.removeValue(forKey: username.lowercased())
            if let address { Self.removeLatest(from: &state.addresses, key: Self.addressKey(address)) }
        }
    }

    /// Takes back the attempt counted when a check began that could not be made (the user store
    /// was unavailable): a fault on the server's side never counts against the user.
    public func recordUnchecked(username: String, address: String?) {
        state.withLock { state in
            Self.removeLatest(from: &state.usernames, key: username.lowercased())
            if let address { Self.removeLatest(from: &state.addresses, key: Self.addressKey(address)) }
        }
    }

    private static func removeLatest(from counters: inout [String: Counter], key: String) {
        guard var counter = counters[key], !counter.failures.isEmpty else { return }
        counter.failures.removeLast()
        counters[key] = counter.failures.isEmpty ? nil : counter
    }

    /// How many usernames and addresses are tracked now.
    public var trackedCount: (usernames: Int, addresses: Int) {
        state.withLock { ($0.usernames.count, $0.addresses.count) }
    }

    private func blockedFor(_ counter: Counter, limit: Int, now: Int64) -> Int64? {
        let recent = counter.failures.filter { now - $0 < limits.window }
        guard recent.count >= limit, let oldest = recent.first else { return nil }
        return max(1, oldest + limits.window - now)
    }

    private func record(in counters: inout [String: Counter], key: String, limit: Int, now: Int64) {
        if counters[key] == nil, counters.count >= limits.capacity {
            counters = counters.filter { now - ($0.value.failures.last ?? 0) < limits.window }
            if counters.count >= limits.capacity,
                let stalest = counters.min(by: { ($0.value.failures.last ?? 0) < ($1.value.failures.last ?? 0) })?.key
            {
                counters[stalest] = nil
            }
        }
        var counter = counters[key] ?? Counter()
        counter.failures.removeAll { now - $0 >= limits.window }
        counter.failures.append(now)
        if counter.failures.count > limit { counter.failures.removeFirst(counter.failures.count - limit) }
        counters[key] = counter
    }
}
