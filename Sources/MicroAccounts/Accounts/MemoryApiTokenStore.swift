import MicroAuth
import MicroCore

/// API tokens kept in this process (lost at restart): for tests, and for an app of one
/// instance that does not mind its scripts needing new tokens after a restart.
public final class MemoryApiTokenStore: ApiTokenStore {
    private let all = Locked<[ApiToken]>([])

    /// An empty store.
    public init() {}

    public func add(_ token: ApiToken, limit: Int, now: Int64) async throws -> Bool {
        all.withLock { tokens in
            tokens.removeAll { !$0.isLive(at: now) }
            guard tokens.count(where: { $0.username == token.username }) < limit else { return false }
            tokens.append(token)
            return true
        }
    }

    public func token(digest: String) async throws -> ApiToken? {
        all.withLock { tokens in tokens.first { ConstantTime.equal($0.digest, digest) } }
    }

    public func tokens(of username: String, now: Int64) async throws -> [ApiToken] {
        all.withLock { tokens in Array(tokens.filter { $0.username == username && $0.isLive(at: now) }.reversed()) }
    }

    public func liveTokens(now: Int64) async throws -> [ApiToken] {
        all.withLock { tokens in Array(tokens.filter { $0.isLive(at: now) }.reversed()) }
    }

    public func revoke(id: String, of username: String, now: Int64) async throws -> ApiToken? {
        all.withLock { tokens in
            guard let index = tokens.firstIndex(where: { $0.id == id && $0.username == username && $0.isLive(at: now) }) else { return nil }
            tokens[index].revokedAt = now
            return tokens[index]
        }
    }

    public func touch(id: String, now: Int64) async throws {
        all.withLock { tokens in
            guard let index = tokens.firstIndex(where: { $0.id == id }),
                tokens[index].lastUsedAt <= now - ApiTokenLimits.touchInterval
            else { return }
            tokens[index].lastUsedAt = now
        }
    }

    public func removeAll(of username: String) async throws {
        all.withLock { tokens in tokens.removeAll { $0.username == username } }
    }

    public func rename(_ username: String, to newName: String) async throws {
        all.withLock { tokens in
            for index in tokens.indices where tokens[index].username == username { tokens[index].username = newName }
        }
    }
}
