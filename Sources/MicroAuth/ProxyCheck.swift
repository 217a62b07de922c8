import Foundation
import Logging
import MicroCore
import Synchronization

/// ``ProxySignIn``'s check of every request: the proxy's word read, the person found, and
/// the session made theirs (or ended) before anything else reads it.
final class ProxyCheck: Sendable {
    let settings: ProxySignIn
    /// When a header from an address that is no trusted proxy was last logged.
    private let lastUntrustedLog = Mutex<Date?>(nil)

    init(settings: ProxySignIn) {
        self.settings = settings
    }

    func run(_ request: Request) async throws {
        // The answer depends on the header: no shared cache may give it to another person.
        request.response.headers.add(name: "Vary", value: settings.userHeader)
        let identity: ProxyIdentity?
        if let identify = settings.identify {
            identity = try await identify(request)
        } else {
            identity = try headerIdentity(request)
        }
        guard let identity else {
            // The proxy names nobody: a session it signed in is not carried on without it.
            if request.signInSource == ProxySignIn.source { request.signOut() }
            return
        }
        let user = try await resolve(identity, request)
        if let current = request.currentUser, request.signInSource == ProxySignIn.source,
            Username.key(current.username) == Username.key(user.username), current.roles == user.user.roles
        {
            return
        }
        // Someone else than the session's user: nothing of theirs is kept.
        if request.isSignedIn { request.signOut() }
        try await request.signIn(user.user, credentialStamp: user.stamp, via: ProxySignIn.source, detail: "proxy")
        request.logger.info("Signed in by the sign-in proxy: \(user.username)")
    }

    /// The header's username (and groups), from a trusted proxy only.
    private func headerIdentity(_ request: Request) throws -> ProxyIdentity? {
        let values = request.headers[settings.userHeader]
        guard !values.isEmpty else { return nil }
        guard request.isFromTrustedProxy else {
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
                "\(settings.userHeader) came from \(request.remoteAddress ?? "an unknown address"), which is not a trusted proxy: ignored (logged at most once a minute)")
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
        let roles = Self.roles(identity.roles ?? [])
        let user = User(username: name, roles: roles)
        return (user, Self.outsideStamp(user), name)
    }

    /// The roles of a groups header that are role names, lowercased, without repeats, bounded
    /// so that the session cookie always fits.
    static func roles(_ sent: [String]) -> [String] {
        Array(Set(sent.prefix(256).map { $0.lowercased() }.filter { User.problem(withRole: $0) == nil }).sorted().prefix(32))
    }

    /// The stamp of a user who is not in the store: their name and roles.
    static func outsideStamp(_ user: User) -> CredentialStamp {
        CredentialStamp(username: user.username, passwordHash: "\u{0}proxy", roles: user.roles)
    }
}
