#if OpenIdConnect
import Crypto
import Foundation
import MicroCore
import Synchronization

/// The ID tokens of single sign-on sessions, for the provider's sign-out (`id_token_hint`,
/// which Okta requires and without which Keycloak asks the person to confirm). A token small
/// enough travels in the session itself, so that any instance finds it; a larger one stays in
/// this bounded, expiring table, the session holding only its handle (a sign-out on another
/// instance then sends `client_id` alone).
final class IdTokenHints: Sendable {
    /// The largest token kept in the session: the session cookie has 4096 bytes for all.
    static let inlineLimit = 1200
    /// The largest token kept at all.
    static let maximumLength = 16 * 1024
    static let tokenKey = "_oidc_id_token"
    static let handleKey = "_oidc_hint"

    private struct Entry {
        let token: String
        let expires: Int64
    }

    private struct Table {
        var entries: [String: Entry] = [:]
        var bytes = 0

        mutating func remove(_ handle: String) -> Entry? {
            guard let entry = entries.removeValue(forKey: handle) else { return nil }
            bytes -= entry.token.utf8.count
            return entry
        }
    }

    private let table = Mutex(Table())
    let capacity: Int
    let byteLimit: Int
    let lifetime: Int64

    init(capacity: Int = 10_000, byteLimit: Int = 8 << 20, lifetime: Int64) {
        self.capacity = max(1, capacity)
        self.byteLimit = max(Self.maximumLength, byteLimit)
        self.lifetime = lifetime
    }

    /// Keeps `token` in the table; returns its handle (nil for a token too large to keep).
    /// Bounded by count and by bytes: when full, the expired go, then the soonest to expire.
    func keep(_ token: String, now: Int64) -> String? {
        let size = token.utf8.count
        guard size <= Self.maximumLength else { return nil }
        let handle = PendingFlow.base64Url(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
        table.withLock { table in
            if table.entries.count >= capacity || table.bytes + size > byteLimit {
                for (key, entry) in table.entries where entry.expires <= now { _ = table.remove(key) }
            }
            while table.entries.count >= capacity || table.bytes + size > byteLimit,
                let soonest = table.entries.min(by: { $0.value.expires < $1.value.expires })?.key
            {
                _ = table.remove(soonest)
            }
            table.entries[handle] = Entry(token: token, expires: now + lifetime)
            table.bytes += size
        }
        return handle
    }

    /// The token of `handle`, taken out of the table; nil when unknown or expired.
    func take(_ handle: String, now: Int64) -> String? {
        guard let entry = table.withLock({ $0.remove(handle) }), entry.expires > now else { return nil }
        return entry.token
    }

    /// Puts what the signed-in session needs to find `token` into it: the token when small,
    /// else the handle of the table's copy.
    func remember(_ token: String, in session: Session, now: Int64) {
        if token.utf8.count <= Self.inlineLimit {
            session[Self.tokenKey] = token
        } else if let handle = keep(token, now: now) {
            session[Self.handleKey] = handle
        }
    }

    /// The ID token of the session that is signing out, if it can be found.
    func token(of session: Session, now: Int64) -> String? {
        if let token = session[Self.tokenKey] { return token }
        return session[Self.handleKey].flatMap { take($0, now: now) }
    }
}
#endif
