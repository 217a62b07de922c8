import MicroCore

/// ``SetupLink``s in this process, lost at restart: for one instance without a database. At
/// most one per user, and at most ``capacity`` in all (the soonest to expire go first).
public final class MemorySetupLinkStore: SetupLinkStore {
    /// The most links kept at once.
    public let capacity: Int
    private let links = Locked([String: SetupLink]())

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
}
