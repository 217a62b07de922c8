import Synchronization

/// Revocations kept in the process's memory: the default.
///
/// A sign-out keeps an 8-byte digest of the session's id with its expiry, and the digest again
/// in the list of its expiry's minute (about 50 bytes in all, with the tables' room), until no
/// copy of the session's cookie could open any more; entries are dropped by the minute they
/// expire in. A revoked user or everyone's revocation is one entry. Requests read it with a lock held for one look-up, and
/// not at all while nothing was ever revoked.
public final class MemorySessionRevocations: SessionRevocations {
    private struct State {
        /// Revoked sessions: their id's digest and when the entry may go.
        var ids: [UInt64: Int64] = [:]
        /// The digests expiring in each minute (seconds / 60).
        var expiring: [Int64: [UInt64]] = [:]
        /// The last minute whose entries were dropped.
        var sweptMinute: Int64 = 0
        /// Revocations by username: sessions begun at or before `time` (milliseconds), until
        /// `expiry` (seconds).
        var users: [String: (time: Int64, expiry: Int64)] = [:]
        /// Every session begun at or before this instant (milliseconds) is revoked.
        var everyone: Int64 = .min
    }

    private let state = Locked(State())
    /// Set by the first revocation: until then requests skip the lock.
    private let used = Atomic<Bool>(false)
    /// The latest instant any revocation known here took effect at, this instance's or
    /// another's. A session begins after it and a revocation made here takes effect after it,
    /// so that two in the same millisecond (or under a clock that stood still, or behind
    /// another instance's) are still told apart in the order they happened.
    private let latest = Atomic<Int64>(.min)

    /// An empty list.
    public init() {}

    public func revoke(id: String, until expiry: Int64, now: Int64) {
        let digest = Self.digest(id)
        guard expiry > now else { return }
        used.store(true, ordering: .releasing)
        state.withLock { state in
            Self.sweep(&state, now: now)
            if let previous = state.ids[digest], previous >= expiry { return }
            state.ids[digest] = expiry
            state.expiring[expiry / 60, default: []].append(digest)
        }
    }

    @discardableResult
    public func revokeSessions(of username: String, at time: Int64, until expiry: Int64, now: Int64) -> Int64 {
        let instant = advance(to: time)
        revokeSessions(of: username, madeElsewhereAt: instant, until: Self.expiry(expiry, movedFrom: time, to: instant), now: now)
        return instant
    }

    /// Adds a revocation of `username`'s sessions another instance made, at the instant its
    /// ``revokeSessions(of:at:until:now:)`` returned, unchanged: what an implementation that
    /// shares revocations calls when it hears of one.
    public func revokeSessions(of username: String, madeElsewhereAt time: Int64, until expiry: Int64, now: Int64) {
        learn(time)
        used.store(true, ordering: .releasing)
        state.withLock { state in
            state.users = state.users.filter { $0.value.expiry > now }
            let previous = state.users[username]
            state.users[username] = (max(time, previous?.time ?? time), max(expiry, previous?.expiry ?? expiry))
        }
    }

    @discardableResult
    public func revokeAll(at time: Int64) -> Int64 {
        let instant = advance(to: time)
        revokeAll(madeElsewhereAt: instant)
        return instant
    }

    /// Adds everyone's revocation another instance made, at the instant its
    /// ``revokeAll(at:)`` returned, unchanged.
    public func revokeAll(madeElsewhereAt time: Int64) {
        learn(time)
        used.store(true, ordering: .releasing)
        state.withLock { $0.everyone = max($0.everyone, time) }
    }

    public func beginning(at now: Int64) -> Int64 {
        // Nothing is written: sessions begun in one millisecond may share an instant, and a
        // revocation made after them takes effect just after the latest known, so at or after
        // every instant handed out before it.
        let known = latest.load(ordering: .acquiring)
        return known < now ? now : known + 1
    }

    public func isRevoked(id: String, created: Int64) -> Bool {
        guard used.load(ordering: .acquiring) else { return false }
        let digest = Self.digest(id)
        return state.withLock { state in
            created <= state.everyone || state.ids[digest] != nil
        }
    }

    public func isRevoked(username: String, created: Int64) -> Bool {
        guard used.load(ordering: .acquiring) else { return false }
        return state.withLock { state in
            guard let revoked = state.users[username] else { return false }
            return created <= revoked.time
        }
    }

    /// How many sessions are revoked one by one now.
    public var count: Int { state.withLock { $0.ids.count } }

    /// The instant a revocation asked for at `time` takes effect at: `time`, or just after the
    /// latest one known when the clock has not passed it (sessions begun since began after
    /// that one, and this revocation must reach them); the latest from now on.
    private func advance(to time: Int64) -> Int64 {
        var known = latest.load(ordering: .acquiring)
        while true {
            let instant = known < time ? time : known + 1
            let (exchanged, original) = latest.compareExchange(expected: known, desired: instant, ordering: .acquiringAndReleasing)
            if exchanged { return instant }
            known = original
        }
    }

    /// When a revocation asked for at `time` and kept until `expiry` may go once it took effect
    /// at `instant`: as much later (the sessions it ends may have begun as much later).
    private static func expiry(_ expiry: Int64, movedFrom time: Int64, to instant: Int64) -> Int64 {
        let (moved, overflow) = expiry.addingReportingOverflow((instant - time + 999) / 1000)
        return overflow ? .max : moved
    }

    /// Notes a revocation made at `time`: sessions begun here from now on begin after it.
    private func learn(_ time: Int64) {
        var known = latest.load(ordering: .acquiring)
        while known < time {
            let (exchanged, original) = latest.compareExchange(expected: known, desired: time, ordering: .acquiringAndReleasing)
            if exchanged { return }
            known = original
        }
    }

    /// Drops the entries of the minutes that have passed: work in proportion to what expired.
    private static func sweep(_ state: inout State, now: Int64) {
        let minute = now / 60 - 1
        guard minute > state.sweptMinute else { return }
        let passed: [Int64]
        if minute - state.sweptMinute > Int64(state.expiring.count) {
            passed = state.expiring.keys.filter { $0 <= minute }
        } else {
            passed = Array(state.sweptMinute + 1...minute)
        }
        for key in passed {
            for digest in state.expiring.removeValue(forKey: key) ?? [] where (state.ids[digest] ?? .max) / 60 <= minute {
                state.ids[digest] = nil
            }
        }
        state.sweptMinute = minute
    }

    /// A 64-bit FNV-1a digest of a session id: ids are random, so 64 bits tell them apart.
    static func digest(_ id: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }
}
