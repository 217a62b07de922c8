import Foundation
import Logging
import MicroAuth
import MicroCore

/// API tokens while the app runs: reads `Authorization: Bearer` on requests answered as a
/// script's, and keeps a short-lived, bounded memory of recent look-ups.
final class ApiTokenService: Sendable {
    /// A token found live, and its user as the store held them when it was looked up.
    struct Entry: Sendable {
        let token: ApiToken
        let user: User
        let stamp: CredentialStamp
        /// When it was looked up, on the app's clock.
        let checked: Int64
    }

    let settings: ApiTokenSettings
    let store: any ApiTokenStore
    private let logger: Logger
    /// Recent look-ups by the token's digest: a script's requests do not each read the table.
    private let recent: BoundedCache<String, Entry>
    /// When each token's use was last written, here: at most once a minute, whatever the rate.
    private let touched = Locked<[String: Int64]>([:])
    private static let memoryBound = 100_000

    init(_ settings: ApiTokenSettings, store: any ApiTokenStore, logger: Logger) {
        self.settings = settings
        self.store = store
        var logger = logger
        logger[metadataKey: "component"] = "api-tokens"
        self.logger = logger
        recent = BoundedCache(capacity: 1024, byteLimit: 1024 * 512) { key, entry in
            128 + key.utf8.count + entry.token.name.utf8.count + entry.user.username.utf8.count + entry.user.name.utf8.count
                + entry.user.roles.joined().utf8.count + entry.token.scopes.joined().utf8.count
        }
    }

    /// The token of an `Authorization: Bearer` header; nil for another scheme.
    static func bearer(_ header: String) -> String? {
        let text = header.trimmingSpaces()
        if text.lowercased() == "bearer" { return "" }
        guard let space = text.firstIndex(of: " "), text[..<space].lowercased() == "bearer" else { return nil }
        return text[space...].trimmingSpaces()
    }

    /// Whether the request was signed in by a token.
    static func isByToken(_ request: Request) -> Bool {
        request.authentication.kind == .apiToken
    }

    /// Signs in, for this request only, the user whose token an `Authorization: Bearer` header
    /// carries, whatever it asks for, when no session is signed in (as
    /// HTTP Basic is: no session is made, and the CSRF token is not asked for). A token that
    /// is malformed, unknown, expired, revoked or of a removed user is a 401, and counts against
    /// the client's address in the sign-in throttle, which refuses every token from an address
    /// past its limit with a 429.
    func accept(_ request: Request) async throws {
        // Any request's, not only one that asks for JSON: no browser adds a Bearer header by
        // itself, so it is always a script's own (curl without `Accept`), unlike HTTP Basic.
        guard !request.isAuthenticatedByHeader, let header = request.headers.first(name: "Authorization"),
            let token = Self.bearer(header)
        else { return }
        // The SCIM endpoints read their own tokens: a user's token opens nothing there.
        if let scim = request.service(ScimService.self), scim.covers(request.path) { return }
        // A signed-in session wins (looked at only when there is a cookie: none is made here).
        if request.cookie(request.sessionSettings.cookieName) != nil, request.isSignedIn { return }
        guard let authentication = request.service(AuthenticationService.self) else { return }
        let now = Int64(request.settings.clock().timeIntervalSince1970)
        let digest = ApiTokenSecret.digest(of: token)
        if let entry = recent.value(for: digest) {
            // An admin's "End sessions" revokes the user's sessions by time, on every instance
            // sharing the revocations: a look-up from before it is looked up again (one in the
            // revocation's second too, since it is timed by the second).
            if now >= entry.checked, now - entry.checked < settings.cacheLifetime.components.seconds, entry.token.isLive(at: now),
                authentication.isCurrent(entry.stamp, username: entry.user.username),
                !request.sessionSettings.revocations.isRevoked(username: entry.user.username, created: entry.checked * 1000)
            {
                try await signIn(request, entry, now: now)
                return
            }
            recent.forget(digest)
        }
        // Throttled by the client's address alone (no name): an unknown token is no user's
        // failed sign-in, and a store that fails counts against nobody.
        let entry: Entry?
        do {
            entry = try await request.signInAttempt(username: nil) { attempt in
                attempt.announcesFailure = false
                attempt.outcome = .unchecked
                let found = try await lookUp(token, digest: digest, now: now, authentication)
                attempt.outcome = found == nil ? .failure : .success
                return found
            }
        } catch let error as HttpError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            logger.error("API tokens unavailable, a token cannot be looked up: \(error)")
            throw HttpError(.serviceUnavailable, "Tokens cannot be checked right now. Please try again in a minute.", headers: ["Retry-After": "60"])
        }
        guard let entry else {
            throw HttpError(.unauthorized, settings.invalidTokenMessage, headers: [
                "WWW-Authenticate": "Bearer realm=\"\(settings.realm)\", error=\"invalid_token\"", "Cache-Control": "no-store",
                "Vary": "Authorization",
            ])
        }
        recent.remember(entry, for: digest)
        try await signIn(request, entry, now: now)
    }

    /// Signs the token's user in for this request, and notes the use; refuses a read-only
    /// token a request that would change something (RFC 6750's `insufficient_scope`).
    private func signIn(_ request: Request, _ entry: Entry, now: Int64) async throws {
        request.signIn(byCredential: entry.user, as: .apiToken(entry.token))
        await touch(entry.token, now: now)
        guard request.authentication.allows(request.method) else {
            throw HttpError(.forbidden, settings.readOnlyTokenMessage, headers: [
                "WWW-Authenticate": "Bearer realm=\"\(settings.realm)\", error=\"insufficient_scope\", scope=\"\(ScopeName.write)\"",
                "Cache-Control": "no-store", "Vary": "Authorization",
            ])
        }
    }

    /// The live token `token` and its user, from the stores.
    private func lookUp(_ token: String, digest: String, now: Int64, _ authentication: AuthenticationService) async throws -> Entry? {
        guard ApiTokenSecret.isWellFormed(token),
            let stored = try await store.token(digest: digest), ConstantTime.equal(stored.digest, digest), stored.isLive(at: now),
            let user = try await authentication.settings.users.find(username: stored.username, using: authentication.settings.hasher),
            !user.isDisabled
        else { return nil }
        if user.passwordChangeDue { throw StoredUser.passwordChangeDueRefusal }
        return Entry(token: stored, user: user.user, stamp: CredentialStamp(user), checked: now)
    }

    /// Deletes every token of `username`, and forgets this instance's look-ups of them; other
    /// instances drop theirs once the user's sessions are revoked, or within the cache's
    /// lifetime.
    func revokeAll(of username: String, now: Int64) async throws {
        let live = try await store.tokens(of: username, now: now)
        try await store.removeAll(of: username)
        for token in live { forget(digest: token.digest) }
    }

    /// Forgets the look-up of a revoked token: on this instance it stops at once.
    func forget(digest: String) {
        recent.forget(digest)
    }

    /// Notes the token's use, at most once per ``ApiTokenLimits/touchInterval``.
    private func touch(_ token: ApiToken, now: Int64) async {
        let due = touched.withLock { touched in
            if let last = touched[token.id], now - last < ApiTokenLimits.touchInterval { return false }
            if touched.count >= Self.memoryBound { touched.removeAll() }
            touched[token.id] = now
            return true
        }
        guard due else { return }
        do { try await store.touch(id: token.id, now: now) } catch { logger.warning("Cannot note that a token was used: \(error)") }
    }
}
