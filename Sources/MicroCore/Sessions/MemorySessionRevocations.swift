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
        /// Revocations by username: sessions begun at or before `time`, until `expiry`.
        var users: [String: (time: Int64, expiry: Int64)] = [:]
        /// Every session begun at or before this time is revoked.
        var everyone: Int64 = .min
    }

    private let state = Locked(State())
    /// Set by the first revocation: until then requests skip the lock.
    private let used = Atomic<Bool>(false)

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

    public func revokeSessions(of username: String, at time: Int64, until expiry: Int64, now: Int64) {
        used.store(true, ordering: .releasing)
        state.withLock { state in
            state.users = state.users.filter { $0.value.expiry > now }
            let previous = state.users[username]
            state.users[username] = (max(time, previous?.time ?? time), max(expiry, previous?.expiry ?? expiry))
        }
    }

    public func revokeAll(at time: Int64) {
        used.store(true, ordering: .releasing)
        state.withLock { $0.everyone = max($0.everyone, time) }
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
