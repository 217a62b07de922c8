import Foundation
import Logging
import MicroCore
import Synchronization

/// ``ProxySignIn``'s check of every request: the proxy's word read, the person found, and
/// the session made theirs (or ended) before anything else reads it.
final class ProxyCheck: Sendable {
    let settings: ProxySignIn
    /// When a header from an address that is not the door's was last logged.
    private let lastUntrustedLog = Mutex<Date?>(nil)
    /// When each client (person, address, browser) that brought no session last had its
    /// sign-in recorded.
    private let recordedFirstRequests = BoundedCache<String, Date>(capacity: 4096, byteLimit: 1 << 20) { key, _ in 64 + key.utf8.count }
    /// When each user's sign-in for one request (no cookie kept) was last logged.
    private let lastOneRequestLog = BoundedCache<String, Date>(capacity: 4096, byteLimit: 1 << 20) { key, _ in 64 + key.utf8.count }

    /// The ranges whose header is believed; nil: the app's trusted proxies, as they are now.
    private let doors: [AddressRange]?
    /// The session's mark of a sign-in not yet recorded: its cookie has not come back.
    static let unrecordedKey = "_proxy_unrecorded"

    init(settings: ProxySignIn) {
        self.settings = settings
        doors = settings.trustedAddresses?.compactMap(AddressRange.init)
    }

    /// Whether the connection comes from the sign-in proxy.
    private func isFromDoor(_ request: Request) -> Bool {
        guard let doors else { return request.isFromTrustedProxy }
        guard let address = request.remoteAddress else { return false }
        return doors.contains { $0.contains(address) }
    }

    func run(_ request: Request) async throws {
        // The answer depends on the header: no shared cache may give it to another person.
        request.response.headers.add(name: "Vary", value: settings.userHeader)
        let identity: ProxyIdentity?
        do {
            if let identify = settings.identify {
                identity = try await identify(request)
            } else {
                identity = try headerIdentity(request)
            }
        } catch {
            // A refused identity leaves nobody signed in: the error page is drawn for this
            // request, and must show nothing of the session's previous person.
            endProxySession(request)
            throw error
        }
        guard let identity else {
            // No word from the proxy. In header mode, a request from the proxy itself may
            // reach a path it does not guard: the session stays. From anywhere else, or where
            // a signed token is the only word, a session the proxy signed in is not carried on.
            if settings.identify != nil || !isFromDoor(request) { endProxySession(request) }
            return
        }
        // The same person as the session's, signed in by the proxy: nothing to look up (the
        // session check has compared their stamp with the store's), unless the proxy's groups
        // may have changed the roles of someone from outside the store.
        var sameKey = false
        if request.signInSource == ProxySignIn.source, let current = request.currentUser,
            let named = try? Username.enforce(identity.username), Username.key(current.username) == Username.key(named)
        {
            if settings.users == .existing || User.roles(fromGroups: identity.roles ?? []) == current.roles {
                await recordIfDue(request, current)
                return
            }
            sameKey = true
        }
        // Someone else: nothing of the session's person is kept, even when the new one is refused.
        if !sameKey, request.isSignedIn { request.signOut() }
        let user: (user: User, stamp: CredentialStamp, username: String)
        do {
            user = try await resolve(identity, request)
        } catch {
            endProxySession(request)
            throw error
        }
        // A store user of `any`'s keeps the store's roles, whatever the groups say.
        if sameKey, let current = request.currentUser, current.roles == user.user.roles {
            await recordIfDue(request, current)
            return
        }
        if request.isSignedIn { request.signOut() }
        // A client that brought no valid session may keep none (curl, a service through the
        // proxy's bearer tokens, which no header tells from a browser's first request): its
        // sign-in is recorded, and its session listed, at once the first time, and then only
        // when its cookie comes back, so that a script's requests are not each a session and an
        // event. Its request is signed in all the same, and logged, at most once a minute per
        // person.
        let records = request.session.cameFromClient || isFirstFromClient(request, user.username)
        try await request.signIn(user.user, credentialStamp: user.stamp, via: ProxySignIn.source, detail: "proxy", announcing: records)
        if records {
            request.session[Self.unrecordedKey] = nil
            request.logger.info("Signed in by the sign-in proxy: \(user.username)")
        } else {
            request.session[Self.unrecordedKey] = "1"
            noteOneRequest(request, user.username)
        }
    }

    /// Whether no sign-in of `username` from this client (its address and browser) that brought
    /// no session was recorded within the sessions' idle time: a browser's first request is
    /// recorded at once; a script's next ones, each without a cookie, are not.
    private func isFirstFromClient(_ request: Request, _ username: String) -> Bool {
        let now = request.settings.clock()
        let client = [Username.key(username), request.clientAddress ?? "", String((request.headers.first(name: "User-Agent") ?? "").unicodeScalars.prefix(256))]
            .joined(separator: "\u{0}")
        if let last = recordedFirstRequests.value(for: client), now >= last,
            now.timeIntervalSince(last) < Double(request.sessionSettings.idleSeconds)
        {
            return false
        }
        recordedFirstRequests.remember(now, for: client)
        return true
    }

    /// Logs, at most once a minute per person, a request the proxy signed in with no session
    /// kept: the trace of a script (or a leaked token) that the audit holds only once a cookie
    /// comes back.
    private func noteOneRequest(_ request: Request, _ username: String) {
        let now = request.settings.clock()
        if let last = lastOneRequestLog.value(for: username), now.timeIntervalSince(last) < 60, now >= last { return }
        lastOneRequestLog.remember(now, for: username)
        request.logger.info(
            "Signed in by the sign-in proxy for a request without a session cookie (a browser's first, or a script's; logged at most once a minute): \(username)")
    }

    /// Records the sign-in of a session whose cookie came back for the first time: a session
    /// worth listing.
    private func recordIfDue(_ request: Request, _ user: User) async {
        guard request.session[Self.unrecordedKey] != nil else { return }
        request.session[Self.unrecordedKey] = nil
        await request.announce { await $0.signedIn(request, user: user, detail: "proxy") }
        request.logger.info("Signed in by the sign-in proxy: \(user.username)")
    }

    /// Signs out a session the proxy signed in, when the session holds one. Reads the session
    /// only when the request brings a cookie, so that answers without one do not vary on it.
    private func endProxySession(_ request: Request) {
        guard request.headers.contains(name: "Cookie"), request.signInSource == ProxySignIn.source else { return }
        request.signOut()
    }

    /// The header's username (and groups), from the door's addresses only.
    private func headerIdentity(_ request: Request) throws -> ProxyIdentity? {
        let values = request.headers[settings.userHeader]
        guard !values.isEmpty else { return nil }
        guard isFromDoor(request) else {
            noteUntrusted(request)
            return nil
        }
        guard values.count == 1, let value = values.first else {
            throw HttpError(.forbidden, "The sign-in proxy sent \(settings.userHeader) more than once.")
        }
        guard value.utf8.count <= ProxySignIn.maximumHeaderBytes else {
            throw HttpError(.forbidden, "The sign-in proxy sent a \(settings.userHeader) longer than \(ProxySignIn.maximumHeaderBytes) bytes.")
        }
        let username = value.trimmingCharacters(in: .whitespaces)
        // An empty value names nobody, as no header does.
        guard !username.isEmpty else { return nil }
        var roles: [String]?
        if let groupsHeader = settings.groupsHeader {
            let sent = request.headers[groupsHeader]
            guard sent.count <= 1, (sent.first?.utf8.count ?? 0) <= 4 * ProxySignIn.maximumHeaderBytes else {
                throw HttpError(.forbidden, "The sign-in proxy sent \(groupsHeader) more than once, or too long.")
            }
            roles = sent.first.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        }
        return ProxyIdentity(username: username, roles: roles)
    }

    /// Logs, at most once a minute, a header naming someone from an address that may not.
    private func noteUntrusted(_ request: Request) {
        let now = request.settings.clock()
        let due = lastUntrustedLog.withLock { last -> Bool in
            if let last, now.timeIntervalSince(last) < 60 { return false }
            last = now
            return true
        }
        if due {
            request.logger.warning(
                "\(settings.userHeader) came from \(request.remoteAddress ?? "an unknown address"), which is not the sign-in proxy's: ignored (logged at most once a minute)")
        }
    }

    /// The user the identity names, and the stamp their session stands by.
    private func resolve(_ identity: ProxyIdentity, _ request: Request) async throws -> (user: User, stamp: CredentialStamp, username: String) {
        let name: String
        do {
            name = try Username.enforce(identity.username)
        } catch {
            throw HttpError(.forbidden, "The sign-in proxy names a user who cannot be one here: \(error)")
        }
        guard let authentication = request.authenticationSettings else {
            throw ConfigurationError("ProxySignIn needs app.use(Authentication(users: ...)).")
        }
        let stored: StoredUser?
        do {
            stored = try await authentication.users.find(username: name, using: authentication.hasher)
        } catch let error as HttpError {
            throw error
        } catch {
            request.logger.error("The sign-in proxy's user cannot be read from the store: \(error)")
            throw HttpError(.serviceUnavailable, "Signing in is unavailable right now. Please try again in a minute.", headers: ["Retry-After": "30"])
        }
        if let stored {
            guard !stored.isDisabled else { throw HttpError(.forbidden, "This account is disabled. Ask an administrator.") }
            return (stored.user, CredentialStamp(stored), stored.user.username)
        }
        guard settings.users == .any else {
            request.logger.notice("The sign-in proxy names \(name), who is no user here")
            throw HttpError(.forbidden, "You are signed in at the company's sign-in, but have no account here. Ask an administrator to add you.")
        }
        let roles = User.roles(fromGroups: identity.roles ?? [])
        let user = User(username: name, roles: roles)
        return (user, Self.outsideStamp(user), name)
    }

    /// The stamp of a user who is not in the store: their name and roles.
    static func outsideStamp(_ user: User) -> CredentialStamp {
        CredentialStamp(username: user.username, passwordHash: "\u{0}proxy", roles: user.roles)
    }
}
