#if OpenIdConnect
import Foundation
import MicroCore

/// A provider's identity waiting for the person to prove the store's user it names: kept in
/// the (encrypted, authenticated) session cookie, so it is bound to this browser and nobody
/// can forge or read it; it lasts a few minutes, allows a few tries, and is taken once.
struct PendingLink: Codable, Sendable, Equatable {
    let issuer: String
    let subject: String
    /// The store user the claim named, as stored.
    let username: String
    /// The claim that named them (`preferred_username`, `email`).
    let claim: String
    /// The ``CredentialStamp`` of the user when the claim named them: a password changed (or
    /// the user disabled) since ends the wait.
    let stamp: String
    /// When it began, seconds since 1970.
    let started: Int64
    /// Wrong answers so far.
    var failures = 0
    /// The handle of the ID token kept for the provider's sign-out (``IdTokenHints``).
    var hint: String?
    /// The provider's session (the ID token's `sid`), noted once the person is signed in.
    var providerSessionId: String?
    /// The roles of the roles claim, given to the user once signed in, with
    /// ``OpenIdConnect/roleSync``.
    var roles: [String]?

    /// The session key.
    static let sessionKey = "_oidc_link"
    /// The most wrong answers before the wait ends (the throttle counts them too).
    static let maximumFailures = 5

    var identity: ExternalIdentity { ExternalIdentity(issuer: issuer, subject: subject) }
}

extension Session {
    /// The pending link, while younger than `lifetime` seconds; an older one is dropped.
    func pendingLink(now: Int64, lifetime: Int64) -> PendingLink? {
        guard let pending = get(PendingLink.sessionKey, as: PendingLink.self) else { return nil }
        guard now - pending.started < lifetime, pending.started <= now + 60 else {
            remove(PendingLink.sessionKey)
            return nil
        }
        return pending
    }
}
#endif
