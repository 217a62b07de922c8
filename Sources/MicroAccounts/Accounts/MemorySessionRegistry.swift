import MicroAuth
import MicroCore

/// The sessions of each user, in this process: for one instance, or a users file. Lost at
/// restart (the sessions themselves go on; they are listed again at their next sign-in).
public final class MemorySessionRegistry: SessionRegistry {
    private struct State {
        var byUser: [String: [RegisteredSession]] = [:]
        /// Each entry's user, so that a touch finds it at once.
        var owners: [String: String] = [:]

        mutating func forget(_ sessions: [RegisteredSession]) {
            for session in sessions { owners[session.entry.id] = nil }
        }
    }

    private let state = Locked(State())
    /// The most users listed at once: beyond it, the user whose newest sign-in is oldest is
    /// forgotten first.
    private let userLimit: Int

    /// An empty registry keeping at most `userLimit` users' sessions.
    public init(userLimit: Int = 10_000) {
        self.userLimit = userLimit
    }

    public func add(_ session: RegisteredSession) async throws -> [RegisteredSession] {
        state.withLock { state in
            let username = session.entry.username
            var list = state.byUser[username, default: []]
            list.removeAll { $0.entry.id == session.entry.id }
            list.append(session)
            var dropped: [RegisteredSession] = []
            if list.count > SessionRegistryLimits.perUser {
                dropped = Array(list.prefix(list.count - SessionRegistryLimits.perUser))
                list.removeFirst(dropped.count)
                state.forget(dropped)
            }
            state.byUser[username] = list
            state.owners[session.entry.id] = username
            if state.byUser.count > userLimit,
                let stalest = state.byUser.min(by: { ($0.value.last?.entry.signedInAt ?? 0) < ($1.value.last?.entry.signedInAt ?? 0) })
            {
                state.forget(stalest.value)
                state.byUser[stalest.key] = nil
            }
            return dropped
        }
    }

    public func touch(id: String, now: Int64) async throws {
        state.withLock { state in
            guard let username = state.owners[id], let index = state.byUser[username]?.firstIndex(where: { $0.entry.id == id }) else { return }
            if now - state.byUser[username]![index].entry.lastSeenAt >= SessionRegistryLimits.touchInterval {
                state.byUser[username]![index].entry.lastSeenAt = now
            }
        }
    }

    public func sessions(of username: String, now: Int64, idle: Int64, lifetime: Int64) async throws -> [RegisteredSession] {
        state.withLock { state in
            // Expired entries go when their user's list is read.
            let list = state.byUser[username] ?? []
            let alive = list.filter {
                $0.entry.lastSeenAt + idle + SessionRegistryLimits.touchInterval > now && $0.entry.signedInAt + lifetime > now
            }
            state.forget(list.filter { entry in !alive.contains { $0.entry.id == entry.entry.id } })
            state.byUser[username] = alive.isEmpty ? nil : alive
            return alive.reversed()
        }
    }

    public func remove(id: String, of username: String) async throws -> RegisteredSession? {
        state.withLock { state in
            guard let index = state.byUser[username]?.firstIndex(where: { $0.entry.id == id }) else { return nil }
            let removed = state.byUser[username]!.remove(at: index)
            state.forget([removed])
            if state.byUser[username]?.isEmpty == true { state.byUser[username] = nil }
            return removed
        }
    }

    public func removeAll(of username: String, keeping: String?) async throws -> [RegisteredSession] {
        state.withLock { state in
            let list = state.byUser[username] ?? []
            let kept = list.filter { $0.entry.id == keeping }
            let removed = list.filter { $0.entry.id != keeping }
            state.forget(removed)
            state.byUser[username] = kept.isEmpty ? nil : kept
            return removed
        }
    }
}
