import MicroCore

/// ``SetupLink``s in this process, lost at restart: for one instance without a database. At
/// most one per user, and at most ``capacity`` in all (the soonest to expire go first).
public final class MemorySetupLinkStore: SetupLinkStore {
    /// The most links kept at once.
    public let capacity: Int
    private let links = Locked([String: SetupLink]())
    /// When reset messages were counted, by user: at most ``capacity`` users, each with the
    /// times of one window.
    private let resets = Locked([String: [Int64]]())

    /// An empty store of at most `capacity` links.
    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// How many links it holds, live or not yet swept.
    public var count: Int { links.withLock { $0.count } }

    public func add(_ link: SetupLink, now: Int64) async throws {
        links.withLock { links in
            links = links.filter { $0.value.username != link.username && $0.value.expiresAt > now }
            if links.count >= capacity, let soonest = links.min(by: { $0.value.expiresAt < $1.value.expiresAt }) {
                links[soonest.key] = nil
            }
            links[link.digest] = link
        }
    }

    public func find(digest: String, now: Int64) async throws -> SetupLink? {
        links.withLock { $0[digest] }.flatMap { $0.expiresAt > now ? $0 : nil }
    }

    public func take(digest: String, now: Int64) async throws -> SetupLink? {
        links.withLock { $0.removeValue(forKey: digest) }.flatMap { $0.expiresAt > now ? $0 : nil }
    }

    public func removeAll(of username: String) async throws {
        links.withLock { $0 = $0.filter { $0.value.username != username } }
    }

    public func rename(_ username: String, to newName: String) async throws {
        links.withLock { links in
            for (digest, link) in links where link.username == username { links[digest]?.username = newName }
        }
    }

    public func countReset(of username: String, now: Int64, limit: Int, window: Int64) async throws -> Bool {
        resets.withLock { resets in
            let recent = (resets[username] ?? []).filter { $0 > now - window }
            guard recent.count < limit else { return false }
            if resets[username] == nil, resets.count >= capacity {
                resets = resets.filter { $0.value.contains { $0 > now - window } }
                // Still full of live windows: the oldest user's goes.
                if resets.count >= capacity, let oldest = resets.min(by: { ($0.value.max() ?? 0) < ($1.value.max() ?? 0) }) {
                    resets[oldest.key] = nil
                }
            }
            resets[username] = recent + [now]
            return true
        }
    }
}
