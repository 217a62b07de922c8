import Crypto
import Foundation
import MicroCore
import NIOCore

/// Limits failed sign-ins: per username (5 in 15 minutes by default) and per client address
/// (20 in 15 minutes; an IPv6 client's /64 counts as one address). Past a limit, attempts are
/// refused until the window has passed, right password or not; a success clears the
/// username's count.
///
/// Checks in flight count against the limits too, so parallel guesses cannot slip past them:
/// an attempt that finds the budget taken by checks still running waits for them
/// (``Decision/wait``) rather than being refused, so that eight tabs signing in at once with the
/// right password all get in, while thirty parallel wrong guesses get five checks.
///
/// A pure state machine over the times it is given, so tests drive it with a fake clock. What it
/// keeps is small and fixed: a username is kept as a 16-byte keyed digest (``Key``), an address
/// as its bytes; a window that has passed is dropped by time; each table holds at most
/// `capacity` entries (beside those of checks in flight, at most one per request under way),
/// and when full, the entry whose window began first goes. The work done
/// while its lock is held never depends on the input's size: digests are made before.
public final class SignInThrottle: Sendable {
    /// The limits.
    public struct Limits: Sendable {
        /// Failed sign-ins allowed for one username within the window.
        public var failuresPerUsername = 5
        /// Failed sign-ins allowed from one client address within the window.
        public var failuresPerAddress = 20
        /// The window from a name's or address's first failure: 15 minutes.
        public var window: Duration = .seconds(15 * 60)
        /// How many usernames (and, separately, addresses) are tracked at most.
        public var capacity = 100_000

        /// The defaults.
        public init() {}
    }

    /// What the throttle keeps of a username or an address: 16 bytes.
    public struct Key: Hashable, Sendable {
        let high: UInt64
        let low: UInt64

        /// Its 16 bytes, for a shared store.
        public var bytes: [UInt8] {
            (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) } + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
        }
    }

    /// What an attempt may do now.
    public enum Decision: Equatable, Sendable {
        /// Check the password; report the outcome with ``finish(username:address:outcome:now:)``.
        case proceed
        /// Checks in flight hold the budget: ask again when one of them has finished.
        case wait
        /// Over a limit: refused for this many seconds.
        case refuse(retryAfter: Int64)
    }

    /// How a check that ``Decision/proceed``ed ended.
    public enum Outcome: Sendable {
        /// The password matched: the username's failures are cleared.
        case success
        /// A wrong password or an unknown name: counts against both limits.
        case failure
        /// No check could be made (the user store failed): nothing is counted.
        case unchecked
    }

    private struct Entry {
        /// When the window began: the first failure of this window.
        var windowStart: Int64
        var failures: Int32
        var inFlight: Int32
    }

    /// One table (usernames or addresses): entries by key, and the windows in the order they
    /// began, so that passed ones are dropped from the front.
    private struct Table {
        var entries: [Key: Entry] = [:]
        var windows = CircularBuffer<(key: Key, start: Int64)>()
    }

    private struct State {
        var usernames = Table()
        var addresses = Table()
    }

    /// The limits in force.
    public let limits: Limits
    private let digestKey: SymmetricKey
    private let state = Locked(State())

    /// A throttle with `limits`; usernames are digested under `digestKey` (random by default;
    /// instances that share a throttle's state share the key).
    public init(limits: Limits = Limits(), digestKey: SymmetricKey = SymmetricKey(size: .bits256)) {
        self.limits = limits
        self.digestKey = digestKey
    }

    /// What the throttle keeps of a username: the keyed digest of its canonical composition
    /// (NFC), so that the spellings of one name (a precomposed or a combining "é") count as one.
    /// Made outside any lock: its cost grows with the name.
    public func key(username: String) -> Key {
        let canonical = username.precomposedStringWithCanonicalMapping
        let mac = HMAC<SHA256>.authenticationCode(for: Data(canonical.utf8), using: digestKey)
        return mac.withUnsafeBytes { bytes in
            Key(high: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                low: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
    }

    /// What failures from the client at `address` count under: an IPv4 address itself, an IPv6
    /// address's /64 network (one subscriber usually holds a whole /64 and can send from any
    /// address in it). Text that is no address counts under its digest.
    public func key(address: String) -> Key {
        guard let parsed = IpAddress(address) else { return key(username: "\u{0}address:" + address) }
        var high: UInt64 = 0
        var low: UInt64 = 0
        if parsed.bytes.count == 16 {
            for byte in parsed.bytes[..<8] { high = high << 8 | UInt64(byte) }
            low = 1  // a /64, never equal to an IPv4 key
        } else {
            for byte in parsed.bytes { low = low << 8 | UInt64(byte) }
        }
        return Key(high: high, low: low)
    }

    /// Whether an attempt for `username` (nil when the name is refused unread) from `address`
    /// may check a password now. ``Decision/proceed`` reserves a place in both budgets: report
    /// how it ended with ``finish(username:address:outcome:now:)``.
    public func begin(username: Key?, address: Key?, now: Int64) -> Decision {
        state.withLock { state in
            Self.dropPassed(&state.usernames, window: limits.windowSeconds, now: now)
            Self.dropPassed(&state.addresses, window: limits.windowSeconds, now: now)
            let name = username.map { state.usernames.entries[$0] }.flatMap { $0 }
            let client = address.map { state.addresses.entries[$0] }.flatMap { $0 }
            var refusal: Int64?
            var busy = false
            for (entry, limit) in [(name, limits.failuresPerUsername), (client, limits.failuresPerAddress)] {
                guard let entry else { continue }
                let failures = live(entry, now: now) ? Int(entry.failures) : 0
                if failures >= limit {
                    refusal = max(refusal ?? 1, entry.windowStart + limits.windowSeconds - now)
                } else if failures + Int(entry.inFlight) >= limit {
                    busy = true
                }
            }
            if let refusal { return .refuse(retryAfter: refusal) }
            if busy { return .wait }
            if let username { reserve(username, in: &state.usernames, now: now) }
            if let address { reserve(address, in: &state.addresses, now: now) }
            return .proceed
        }
    }

    /// Ends an attempt that ``begin(username:address:now:)`` let proceed.
    public func finish(username: Key?, address: Key?, outcome: Outcome, now: Int64) {
        state.withLock { state in
            if let username { settle(username, in: &state.usernames, outcome: outcome, clears: true, now: now) }
            if let address { settle(address, in: &state.addresses, outcome: outcome, clears: false, now: now) }
        }
    }

    /// Takes the counts a shared ``SignInThrottleStore`` holds as this instance's own: they
    /// include every instance's failures. Checks in flight here stay counted.
    public func adopt(_ shared: SignInFailures, username: Key?, address: Key?, now: Int64) {
        state.withLock { state in
            if let username { adopt(shared.username, for: username, in: &state.usernames, now: now) }
            if let address { adopt(shared.address, for: address, in: &state.addresses, now: now) }
        }
    }

    private func adopt(_ count: SignInFailures.Count?, for key: Key, in table: inout Table, now: Int64) {
        let entry = table.entries[key]
        guard let count, count.failures > 0, now - count.windowStart < limits.windowSeconds else {
            guard var entry else { return }
            entry.failures = 0
            table.entries[key] = entry.inFlight == 0 ? nil : entry
            return
        }
        if entry == nil { makeRoom(in: &table) }
        var adopted = entry ?? Entry(windowStart: count.windowStart, failures: 0, inFlight: 0)
        if entry == nil || adopted.windowStart != count.windowStart { table.windows.append((key, count.windowStart)) }
        adopted.windowStart = count.windowStart
        adopted.failures = Int32(clamping: count.failures)
        table.entries[key] = adopted
    }

    /// How many usernames and addresses are tracked now.
    public var trackedCount: (usernames: Int, addresses: Int) {
        state.withLock { ($0.usernames.entries.count, $0.addresses.entries.count) }
    }

    private func live(_ entry: Entry, now: Int64) -> Bool {
        entry.failures > 0 && now - entry.windowStart < limits.windowSeconds
    }

    private func reserve(_ key: Key, in table: inout Table, now: Int64) {
        if var entry = table.entries[key] {
            entry.inFlight += 1
            table.entries[key] = entry
            return
        }
        makeRoom(in: &table)
        table.entries[key] = Entry(windowStart: now, failures: 0, inFlight: 1)
    }

    private func settle(_ key: Key, in table: inout Table, outcome: Outcome, clears: Bool, now: Int64) {
        guard var entry = table.entries[key] else { return }
        entry.inFlight = max(0, entry.inFlight - 1)
        switch outcome {
        case .failure:
            if !live(entry, now: now) {
                // A new window begins with this failure.
                entry.windowStart = now
                entry.failures = 0
                table.windows.append((key, now))
            }
            entry.failures += 1
        case .success:
            if clears { entry.failures = 0 }
        case .unchecked:
            break
        }
        table.entries[key] = entry.inFlight == 0 && !live(entry, now: now) ? nil : entry
    }

    /// Drops a few passed windows from the front: each call does a bounded amount of work, and
    /// the calls together keep up with the windows that begin.
    private static func dropPassed(_ table: inout Table, window: Int64, now: Int64) {
        var budget = 8
        while budget > 0, let first = table.windows.first, now - first.start >= window {
            table.windows.removeFirst()
            budget -= 1
            forget(first, in: &table)
        }
    }

    /// Before a new entry: when the table is full, the entry whose window began first goes.
    private func makeRoom(in table: inout Table) {
        while table.entries.count >= limits.capacity || table.windows.count >= 2 * limits.capacity,
            let first = table.windows.popFirst()
        {
            Self.forget(first, in: &table)
        }
    }

    /// The window `record` names leaves the queue: its entry goes, or, while checks of it are
    /// in flight, loses its failures, so that every entry with failures has its window queued
    /// (a failure after this begins a new one) and the table's bound holds.
    private static func forget(_ record: (key: Key, start: Int64), in table: inout Table) {
        guard var entry = table.entries[record.key], entry.windowStart == record.start else { return }
        if entry.inFlight == 0 {
            table.entries[record.key] = nil
        } else {
            entry.failures = 0
            table.entries[record.key] = entry
        }
    }
}
