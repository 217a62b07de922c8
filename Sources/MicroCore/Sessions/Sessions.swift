import Foundation
import Logging

/// Sessions in the request's life: loaded the first time a route (or Micro) asks for them,
/// committed to the cookie after the after filters, only when they changed.
package struct Sessions: Sendable {
    package let settings: SessionSettings
    let store: any SessionStore
    let secure: Bool
    let environment: Environment
    let now: @Sendable () -> Date
    /// Checks plugins add: a session one of them refuses (its user was removed, say) is over.
    let checks: [@Sendable (SessionData, any SessionRevocations) -> Bool]

    /// The most a cookie may weigh: browsers keep 4096 bytes for name, value and attributes.
    static let cookieLimit = 4096

    init(settings: Settings, checks: [@Sendable (SessionData, any SessionRevocations) -> Bool] = []) throws(ConfigurationError) {
        self.settings = settings.sessions
        self.checks = checks
        environment = settings.environment
        now = settings.clock
        secure = settings.sessions.secureCookie ?? (settings.environment == .production || settings.parsedPublicUrl?.isHttps == true || settings.tls != nil)
        if let store = settings.sessions.store {
            self.store = store
        } else {
            let secret = try SessionSecret.resolve(settings)
            store = CookieSessionStore(secret: secret, cookieName: settings.sessions.cookieName)
        }
    }

    /// The app's clock in milliseconds since 1970 (whole seconds are these divided by 1000).
    private var clock: Int64 { Int64(now().timeIntervalSince1970 * 1000) }

    /// The request's session: the client's if its cookie is valid and not expired, else a new one.
    func load(for request: Request) -> Session {
        let instant = clock
        let now = instant / 1000
        if let value = request.cookie(settings.cookieName), let data = store.load(cookieValue: value),
            now - data.lastSeen < settings.idleSeconds, instant - data.createdMilliseconds < settings.lifetimeSeconds * 1000,
            data.lastSeen <= now + 60, isCurrent(data)
        {
            let session = Session(data: data, existed: true, nowMilliseconds: instant, revocations: settings.revocations)
            // Renew the inactivity window, at most once a minute, so that reading a session
            // does not rewrite its cookie on every request.
            if now - data.lastSeen >= min(60, settings.idleSeconds / 10) { session.renew(at: now) }
            return session
        }
        let data = SessionData(id: "", createdMilliseconds: settings.revocations.beginning(at: instant), lastSeen: now)
        let session = Session(data: data, existed: false, nowMilliseconds: instant, revocations: settings.revocations)
        // A cookie that named no valid session (expired, forged, from an old secret) is
        // deleted, so the browser stops sending it.
        session.staleCookie = request.cookie(settings.cookieName) != nil
        return session
    }

    /// Whether no revocation and no plugin's check ended the session: read from memory.
    private func isCurrent(_ data: SessionData) -> Bool {
        guard !settings.revocations.isRevoked(id: data.id, created: data.createdMilliseconds) else { return false }
        for check in checks where !check(data, settings.revocations) { return false }
        return true
    }

    /// Ends the session at once, wherever its cookie is: a sign-out. The entry is kept while a
    /// copy of the cookie could still open: until the session's absolute end, or until its idle
    /// timeout has passed since now (no copy is renewed after this), whichever comes first.
    /// (A session begun within a second opens into the second its lifetime ends in: one more.)
    package func revoke(_ session: Session) {
        guard !session.data.id.isEmpty else { return }
        let end = min(session.data.createdMilliseconds / 1000 + 1 + settings.lifetimeSeconds, session.now + settings.idleSeconds + 60)
        settings.revocations.revoke(id: session.data.id, until: end, now: session.now)
    }

    /// Ends every session of `username` begun until `instant` (the request's time in
    /// milliseconds, ``Session/nowMilliseconds``), wherever its cookie is.
    package func revokeSessions(of username: String, at instant: Int64) {
        let now = instant / 1000
        settings.revocations.revokeSessions(of: username, at: instant, until: now + 1 + settings.lifetimeSeconds, now: now)
    }

    /// Writes the session's cookie into `response` when the session changed; deletes it when
    /// the session was emptied. Throws (in development) when the cookie would be too large.
    /// The cookie is for `path`: the path the app is mounted under, so that apps mounted side
    /// by side on one host keep their own sessions. `logger` is asked for only when there is
    /// something to log (a request's own is made on first use).
    func commit(_ session: Session, into response: inout Response, path: String = "/", logger: @autoclosure () -> Logger) throws {
        for id in session.retiredIds { store.destroy(id: id) }
        guard session.changed else {
            if session.staleCookie { response.setCookie(cookie(value: "", maxAge: 0, path: path)) }
            return
        }
        if session.isEmpty {
            if !session.data.id.isEmpty { store.destroy(id: session.data.id) }
            if session.existed || session.staleCookie || !session.retiredIds.isEmpty {
                response.setCookie(cookie(value: "", maxAge: 0, path: path))
            }
            return
        }
        _ = session.id  // a new session draws its identity now
        let value = try store.save(session.data)
        let cookie = cookie(value: value, maxAge: Int(settings.idleSeconds), path: path)
        guard cookie.headerValue.utf8.count <= Self.cookieLimit else {
            let message = "The session cookie would be \(cookie.headerValue.utf8.count) bytes, more than the \(Self.cookieLimit) browsers keep: keep less in the session (keys: \(session.keys.sorted().joined(separator: ", "))), or use a server-side store."
            if environment == .production {
                logger().error("\(message) The session was not saved.")
                return
            }
            throw SessionError(message)
        }
        response.setCookie(cookie)
    }

    private func cookie(value: String, maxAge: Int, path: String) -> Cookie {
        Cookie(name: settings.cookieName, value: value, path: path, maxAge: maxAge, secure: secure, httpOnly: true, sameSite: .lax)
    }
}
