import Crypto
import Foundation
import Logging
import MicroAuth
import MicroCore

/// The account pages' state while the app runs: the session registry, the activity, and
/// what the sign-in flow tells them.
final class AccountsService: Sendable {
    let settings: Accounts
    let logger: Logger
    /// When each entry was last noted as seen, here: a replayed cookie, whose own note is old,
    /// does not write more often than a fresh one. Emptied when it grows past its bound.
    private let touched = Locked<[String: Int64]>([:])
    /// When a lockout was last recorded for each user: one event per user and window, however
    /// many refused attempts follow, so that they cannot push the other events out of the log.
    private let lockouts = Locked<[String: Int64]>([:])
    private static let memoryBound = 100_000

    /// The reset messages waiting to be sent (with ``Accounts/mail``).
    let mailQueue: MailQueue?

    init(_ settings: Accounts, logger: Logger) {
        self.settings = settings
        var logger = logger
        logger[metadataKey: "component"] = "accounts"
        self.logger = logger
        mailQueue = settings.mail.map { MailQueue(mailer: $0.mailer, capacity: $0.queueCapacity, logger: logger) }
    }

    /// The key under which a session keeps when it last told the registry it was seen.
    static let seenKey = "_seen"

    /// The registry's id of the session `id`: a digest, which opens nothing.
    static func entryId(of sessionId: String) -> String {
        Base64Url.encode(Array(SHA256.hash(data: Data(("micro session entry " + sessionId).utf8)).prefix(16)))
    }

    // MARK: What the sign-in flow tells

    /// `user` has just signed in to `request`'s session (its identity new): lists the session,
    /// ends the oldest when there are too many, and records the event.
    func signedIn(_ request: Request, user: User, detail: String) async {
        let now = request.session.now
        let session = registered(request, user: user)
        request.session[Self.seenKey] = String(now)
        // The session keeps its values across a sign-in: what a passkey or the users page's
        // proof showed of an earlier person does not carry over (a passkey's sign-in notes its
        // marker again after this), or an admin signing in on a browser another admin proved
        // would inherit that proof.
        request.session.remove(Request.twoFactorSignInKey)
        request.session.remove(AdminProof.sessionKey)
        // A provider's sign-in is the only proof a session by single sign-on can give here; a
        // way that signs in again unasked (a sign-in proxy) gives none.
        if request.isSignedInByProvingWay { AdminProof.note(request, lifetime: settings.adminProofLifetime.components.seconds) }
        do {
            for dropped in try await settings.sessions.add(session) { end(dropped, request) }
        } catch {
            logger.error("Cannot list the new session of \(user.username): \(error)")
        }
        await record(request, username: user.username, event: ActivityEvent.Kind.signedIn, detail: detail)
    }

    /// The registry's entry for `request`'s session of `user`, begun when the session last
    /// restarted, to the millisecond: a session re-keyed by "sign out everywhere else" counts
    /// from just after the revocation it survives, and is listed as the live session it is.
    private func registered(_ request: Request, user: User) -> RegisteredSession {
        let now = request.session.now
        let begun = request.session.createdMilliseconds
        let signedInAt = max(now, begun / 1000)
        return RegisteredSession(
            entry: SessionEntry(
                id: Self.entryId(of: request.session.id), username: user.username, browser: UserAgentSummary.describe(request.userAgent),
                userAgent: String(decoding: (request.userAgent ?? "").utf8.prefix(512), as: UTF8.self), address: request.clientAddress ?? "",
                signedInAt: signedInAt, lastSeenAt: now),
            // Begun within a second, the session opens into the second its lifetime ends in.
            sessionId: request.session.id, expiresAt: signedInAt + 1 + request.sessionSettings.lifetimeSeconds,
            signedInMilliseconds: begun)
    }

    /// A wrong password (or code) for `username`; nil when the name typed is no user's: the
    /// unknown user's event, never the text typed.
    func signInFailed(_ request: Request, username: String?) async {
        await record(request, username: username ?? ActivityEvent.unknownUser, event: ActivityEvent.Kind.signInFailed, detail: "")
    }

    /// The throttle refused a sign-in under `name`: news once per user and window (however many
    /// refused attempts follow, so they cannot push other events out of the log), and none for
    /// names that are no user's. Counted before the look-up, so the refusals cost no query.
    func lockedOut(_ request: Request, name: String?, authentication: Authentication) async {
        guard let name else { return }
        let now = request.session.now
        let window = authentication.throttleLimits.windowSeconds
        let fresh = lockouts.withLock { lockouts in
            if let last = lockouts[name], now - last < window { return false }
            if lockouts.count >= Self.memoryBound { lockouts.removeAll() }
            lockouts[name] = now
            return true
        }
        guard fresh, let stored = try? await authentication.users.find(username: name, using: authentication.hasher) else { return }
        await record(request, username: stored.user.username, event: ActivityEvent.Kind.lockedOut, detail: "")
    }

    /// The request's session is signing out.
    func signingOut(_ request: Request) async {
        guard let user = request.currentUser, !request.isAuthenticatedByHeader else { return }
        _ = try? await settings.sessions.remove(id: Self.entryId(of: request.session.id), of: user.username)
        await record(request, username: user.username, event: ActivityEvent.Kind.signedOut, detail: "")
    }

    /// Every session of `username` was ended: none of them is listed any more; with
    /// `everyWayIn`, each other way into the account ends too (``AccessEndings``). A way that
    /// cannot be ended now is logged, and the others still end.
    func sessionsEnded(_ request: Request, username: String, everyWayIn: Bool) async {
        do {
            // Revoked by id too: a session begun on an instance whose clock runs ahead of this
            // one's could outlive the revocation by time.
            for session in try await settings.sessions.removeAll(of: username, keeping: nil) { end(session, request) }
        } catch {
            logger.error("Cannot take the sessions of \(username) off the list: \(error)")
        }
        guard everyWayIn else { return }
        for ending in request.service(AccessEndings.self)?.list ?? [] {
            do {
                try await ending.run(request, username)
            } catch {
                logger.error("Cannot end the \(ending.what) of \(username): \(error)")
            }
        }
    }

    /// A signed-in request: tells the registry the session was seen, at most once a minute.
    func seen(_ request: Request) {
        guard !request.isAuthenticatedByHeader, request.currentUser != nil else { return }
        let now = request.session.now
        if let last = request.session[Self.seenKey].flatMap(Int64.init), now - last < SessionRegistryLimits.touchInterval { return }
        request.session[Self.seenKey] = String(now)
        let id = Self.entryId(of: request.session.id)
        let due = touched.withLock { touched in
            if let last = touched[id], now - last < SessionRegistryLimits.touchInterval { return false }
            if touched.count >= Self.memoryBound { touched.removeAll() }
            touched[id] = now
            return true
        }
        guard due else { return }
        let registry = settings.sessions
        let logger = logger
        // Bookkeeping: the page does not wait for it.
        Task {
            do { try await registry.touch(id: id, now: now) } catch { logger.warning("Cannot note that a session was seen: \(error)") }
        }
    }

    // MARK: What the pages do

    /// The sessions of `username` still alive: neither expired nor revoked.
    func liveSessions(of username: String, _ request: Request) async throws -> [RegisteredSession] {
        let sessions = request.sessionSettings
        let listed = try await settings.sessions.sessions(
            of: username, now: request.session.now, idle: sessions.idleSeconds, lifetime: sessions.lifetimeSeconds)
        let revocations = sessions.revocations
        return listed.filter {
            !revocations.isRevoked(id: $0.sessionId, created: $0.signedInMilliseconds)
                && !revocations.isRevoked(username: username, created: $0.signedInMilliseconds)
        }
    }

    /// Ends `session` wherever its cookie is: revoked on every instance that shares the app's
    /// revocations.
    func end(_ session: RegisteredSession, _ request: Request) {
        request.sessionSettings.revocations.revoke(id: session.sessionId, until: session.expiresAt, now: request.session.now)
    }

    /// Lists `request`'s session anew (after its identity changed).
    func relist(_ request: Request, user: User) async {
        request.session[Self.seenKey] = String(request.session.now)
        do {
            for dropped in try await settings.sessions.add(registered(request, user: user)) { end(dropped, request) }
        } catch {
            logger.error("Cannot list the session of \(user.username): \(error)")
        }
    }

    /// Records `event` for `username`, with the request's address and browser; logged too.
    func record(_ request: Request, username: String, event: String, detail: String) async {
        let entry = ActivityEvent(
            username: username, event: event, at: request.session.now, address: request.clientAddress ?? "",
            browser: UserAgentSummary.describe(request.userAgent), detail: detail)
        request.logger.info(
            "account event", metadata: ["event": "\(event)", "user": "\(username)", "address": "\(entry.address)", "detail": "\(detail)"])
        do {
            try await settings.activity.record(entry)
        } catch {
            request.logger.error("Cannot record the account event \(event) of \(username): \(error)")
        }
    }
}
