import Crypto
import Foundation
import MicroCore

/// Scripts' HTTP Basic credentials that were checked lately, so that a script does not pay a
/// bcrypt check on every request. Keyed by a keyed hash of the name and password (neither is
/// kept), bounded in count, and each entry good only for `lifetime`, and only while its user's
/// stamp is current (same password and roles, not removed) and their sessions were not revoked
/// since the check (a sign-out everywhere drops it).
final class BasicCredentialCache: Sendable {
    struct Entry: Sendable {
        let user: User
        let stamp: CredentialStamp
        /// When the credentials were checked, on the app's clock (seconds).
        let checked: Int64
    }

    private let key = SymmetricKey(size: .bits256)
    private let entries: BoundedCache<Data, Entry>
    let lifetime: Int64

    init(capacity: Int = 1024, lifetime: Int64) {
        entries = BoundedCache(capacity: capacity, byteLimit: capacity * 512) { key, entry in
            128 + key.count + entry.user.username.utf8.count + entry.user.name.utf8.count + entry.user.roles.joined().utf8.count
        }
        self.lifetime = lifetime
    }

    /// The user of `credentials` when they were checked within the lifetime and `stillValid`
    /// says the entry holds.
    func user(for credentials: BasicCredentials, now: Int64, stillValid: (Entry) -> Bool) -> User? {
        let key = digest(credentials)
        guard let entry = entries.value(for: key) else { return nil }
        guard now >= entry.checked, now - entry.checked < lifetime, stillValid(entry) else {
            entries.forget(key)
            return nil
        }
        return entry.user
    }

    /// Keeps the outcome of a successful check.
    func remember(_ stored: StoredUser, for credentials: BasicCredentials, now: Int64) {
        let key = digest(credentials)
        entries.forget(key)
        entries.remember(Entry(user: stored.user, stamp: CredentialStamp(stored), checked: now), for: key)
    }

    private func digest(_ credentials: BasicCredentials) -> Data {
        var hmac = HMAC<SHA256>(key: key)
        // The name's length first: no other split of the same bytes gives the same key.
        withUnsafeBytes(of: UInt64(credentials.username.utf8.count).bigEndian) { hmac.update(data: Data($0)) }
        hmac.update(data: Data(credentials.username.utf8))
        hmac.update(data: Data(credentials.password.utf8))
        return Data(hmac.finalize())
    }
}
