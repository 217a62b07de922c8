#if OpenIdConnect
import Synchronization

/// The sessions single sign-on began, and the logout tokens acted on, kept in this process:
/// for one instance.
///
/// Bounded: when a table is full, its expired entries go, and if that frees too little, the
/// hundredth that ends soonest; so a full table is swept once per many additions, not on each.
/// A logout token is accepted only for a short time after it was issued, so a forgotten
/// token could not be replayed for long; a forgotten session is one a logout cannot find,
/// which takes more sign-ins than ``capacity`` within a session's lifetime.
public final class MemoryProviderSessionStore: ProviderSessionStore {
    private struct Tables {
        var sessions: [String: ProviderSession] = [:]
        /// The sessions of each person, and of each provider's session: what a logout names.
        var byPerson: [ExternalIdentity: Set<String>] = [:]
        var byProviderSession: [AtIssuer: Set<String>] = [:]
        var tokens: [AtIssuer: Int64] = [:]

        mutating func remove(_ id: String) {
            guard let session = sessions.removeValue(forKey: id) else { return }
            byPerson[session.identity]?.remove(id)
            if byPerson[session.identity]?.isEmpty == true { byPerson[session.identity] = nil }
            if let sid = session.providerSessionId {
                let key = AtIssuer(issuer: session.identity.issuer, name: sid)
                byProviderSession[key]?.remove(id)
                if byProviderSession[key]?.isEmpty == true { byProviderSession[key] = nil }
            }
        }
    }

    /// A provider's session or logout token: names its issuer gave.
    private struct AtIssuer: Hashable {
        let issuer: String
        let name: String
    }

    private let tables = Mutex(Tables())
    /// The most sessions, and the most logout tokens, kept.
    public let capacity: Int

    /// A store keeping at most `capacity` sessions and as many logout tokens.
    public init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
    }

    public func record(_ session: ProviderSession, now: Int64) async throws {
        let capacity = capacity
        tables.withLock { tables in
            if tables.sessions.count >= capacity {
                for (id, kept) in tables.sessions where kept.expiresAt <= now { tables.remove(id) }
                if tables.sessions.count >= capacity {
                    let soonest = tables.sessions.values.sorted { $0.expiresAt < $1.expiresAt }.prefix(max(1, capacity / 100))
                    for kept in soonest { tables.remove(kept.sessionId) }
                }
            }
            tables.remove(session.sessionId)
            tables.sessions[session.sessionId] = session
            tables.byPerson[session.identity, default: []].insert(session.sessionId)
            if let sid = session.providerSessionId {
                tables.byProviderSession[AtIssuer(issuer: session.identity.issuer, name: sid), default: []].insert(session.sessionId)
            }
        }
    }

    public func take(issuer: String, providerSessionId: String?, subject: String?, now: Int64) async throws -> [ProviderSession] {
        tables.withLock { tables in
            let ids: Set<String>
            if let providerSessionId {
                ids = tables.byProviderSession[AtIssuer(issuer: issuer, name: providerSessionId)] ?? []
            } else if let subject {
                ids = tables.byPerson[ExternalIdentity(issuer: issuer, subject: subject)] ?? []
            } else {
                return []
            }
            let named = ids.compactMap { tables.sessions[$0] }.filter { subject == nil || $0.identity.subject == subject }
            for session in named { tables.remove(session.sessionId) }
            return named.filter { $0.expiresAt > now }.sorted { $0.sessionId < $1.sessionId }
        }
    }

    public func noteLogoutToken(_ tokenId: String, issuer: String, until expiry: Int64, now: Int64) async throws -> Bool {
        let key = AtIssuer(issuer: issuer, name: tokenId)
        let capacity = capacity
        return tables.withLock { tables in
            if let kept = tables.tokens[key], kept > now { return false }
            if tables.tokens.count >= capacity {
                tables.tokens = tables.tokens.filter { $0.value > now }
                if tables.tokens.count >= capacity {
                    for (soonest, _) in tables.tokens.sorted(by: { $0.value < $1.value }).prefix(max(1, capacity / 100)) { tables.tokens[soonest] = nil }
                }
            }
            tables.tokens[key] = expiry
            return true
        }
    }

    public func forgetLogoutToken(_ tokenId: String, issuer: String) async throws {
        _ = tables.withLock { $0.tokens.removeValue(forKey: AtIssuer(issuer: issuer, name: tokenId)) }
    }
}
#endif
