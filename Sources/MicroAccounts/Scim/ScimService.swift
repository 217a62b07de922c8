import Foundation
import Logging
import MicroAuth
import MicroCore

/// SCIM while the app runs: checks each request's token and turns whatever a handler throws
/// into an RFC 7644 error, so that no client's input reaches the app's error pages.
final class ScimService: Sendable {
    let settings: ScimProvisioning
    let store: DatabaseScimStore
    let accounts: Accounts
    let logger: Logger

    init(_ settings: ScimProvisioning, store: DatabaseScimStore, accounts: Accounts, logger: Logger) {
        self.settings = settings
        self.store = store
        self.accounts = accounts
        var logger = logger
        logger[metadataKey: "component"] = "scim"
        self.logger = logger
    }

    /// Whether `path` (within the app) is one of the SCIM endpoints': API tokens are not read there.
    func covers(_ path: String) -> Bool {
        path == settings.path || path.hasPrefix(settings.path + "/")
    }

    /// The endpoints' absolute URL, for `meta.location`.
    func base(_ request: Request) -> String {
        request.absoluteUrl(settings.path)
    }

    /// Answers `request` with what `handle` makes of it once its token is checked; every
    /// refusal is a SCIM error, and a store that fails is a 503.
    func answer(_ request: Request, _ handle: (ScimClient) async throws -> Response) async -> Response {
        do {
            let client = try await authenticate(request)
            return try await handle(client)
        } catch let error as ScimError {
            return error.response
        } catch let error as HttpError {
            var response = ScimError(error.status, nil, error.message).response
            for (name, value) in error.headers where name.lowercased() == "retry-after" { response.headers.replaceOrAdd(name: name, value: value) }
            return response
        } catch {
            logger.error("SCIM request failed: \(error)")
            var response = ScimError(.serviceUnavailable, nil, "The users cannot be read or changed right now. Please try again in a minute.").response
            response.headers.replaceOrAdd(name: "Retry-After", value: "60")
            return response
        }
    }

    /// The client whose token the request carries; a missing, malformed or unknown one is a
    /// 401 counted against the client's address by the sign-in throttle, which refuses every
    /// token from an address past its limit with a 429.
    private func authenticate(_ request: Request) async throws -> ScimClient {
        guard let header = request.headers.first(name: "Authorization"), let secret = ApiTokenService.bearer(header) else {
            throw ScimError(.unauthorized, nil, "Send the SCIM token as Authorization: Bearer TOKEN.")
        }
        let now = Int64(request.settings.clock().timeIntervalSince1970)
        let found = try await request.signInAttempt(username: nil) { attempt in
            attempt.announcesFailure = false
            attempt.outcome = .unchecked
            var token: ScimToken?
            if ScimToken.isWellFormed(secret) {
                let digest = ApiTokenSecret.digest(of: secret)
                if let stored = try await store.token(digest: digest), ConstantTime.equal(stored.digest, digest) { token = stored }
            }
            attempt.outcome = token == nil ? .failure : .success
            return token
        }
        guard let found else { throw ScimError(.unauthorized, nil, "This SCIM token is unknown or revoked.") }
        if now - found.lastUsedAt >= 60 {
            do { try await store.touch(id: found.id, now: now) } catch { logger.warning("Cannot note that a SCIM token was used: \(error)") }
        }
        return ScimClient(token: found)
    }

    /// The users table SCIM changes; a users file cannot be written (501).
    func users(_ request: Request) throws -> any UserTableStore {
        guard let users = request.service(AuthenticationService.self)?.settings.users as? any UserTableStore else {
            throw ScimError(.notImplemented, nil, "This app's users are kept in a file, which SCIM cannot change: provisioning needs a users table.")
        }
        return users
    }

    /// Records `event` of `username` as `client`'s doing, in the audit and the user's activity.
    func record(_ request: Request, _ client: ScimClient, username: String, event: String, detail: String = "") async {
        guard let service = request.service(AccountsService.self) else { return }
        await service.record(request, username: username, event: event, detail: (detail.isEmpty ? "" : detail + " ") + client.byline)
    }

    /// What the users page's "Disable" and "Enable" do: the store's change, the set-up links'
    /// end (on a disabling) and every way in ended, on every instance. False when the user
    /// is the last enabled admin (refused).
    func setActive(_ active: Bool, of username: String, _ request: Request, _ client: ScimClient) async throws -> Bool {
        let change = try await users(request).setDisabled(!active, username: username, keepingOne: accounts.adminRole)
        switch change {
        case .done: break
        case .noSuchUser: throw ScimError.notFound("No user \(username).")
        case .lastAdmin: throw ScimError(.conflict, nil, "\(username) is the last enabled user with the role \(accounts.adminRole): they stay enabled.")
        }
        if !active { try await accounts.setupLinks.removeAll(of: username) }
        // Enabling ends them too: no cookie or token from before the disabling comes back.
        await request.endSessions(of: username, everyWayIn: true)
        await record(request, client, username: username, event: active ? ActivityEvent.Kind.userEnabled : ActivityEvent.Kind.userDisabled)
        return true
    }

    /// What the users page's "Remove" does.
    func remove(_ username: String, _ request: Request, _ client: ScimClient) async throws {
        let change = try await users(request).removeUser(username: username, keepingOne: accounts.adminRole)
        switch change {
        case .done: break
        case .noSuchUser: throw ScimError.notFound("No user \(username).")
        case .lastAdmin: throw ScimError(.conflict, nil, "\(username) is the last enabled user with the role \(accounts.adminRole): they stay.")
        }
        await request.endSessions(of: username, everyWayIn: true)
        // The removal is the removed account's last event: recorded before its history is
        // marked as ended.
        await record(request, client, username: username, event: ActivityEvent.Kind.userRemoved)
        await forgetLeftovers(of: username, request)
    }

    /// Deletes what an earlier holder of `username` left (tokens, second factor, passkeys,
    /// listed sessions, set-up links) and marks its activity as an ended account's, as the
    /// users page does after a removal and before an addition.
    func forgetLeftovers(of username: String, _ request: Request) async {
        do {
            try await request.service(ApiTokenService.self)?.store.removeAll(of: username)
            if let database = accounts.database {
                for feature in accounts.features { try await feature.forget(username, in: database) }
            }
            _ = try await accounts.sessions.removeAll(of: username, keeping: nil)
            try await accounts.setupLinks.removeAll(of: username)
            try await store.setExternalId(nil, of: "User", username)
            try await accounts.activity.endAccount(of: username, at: request.session.now)
        } catch {
            logger.error("Cannot delete the tokens, second factor, passkeys or history left by \(username): \(error)")
        }
    }
}
