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
    /// One rename at a time on this instance (``oneRenameAtATime(_:)``).
    private let renames = AsyncTurns()

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
    /// 401 counted against the client's address by the sign-in throttle, which refuses it with
    /// a 429 once the address is past its limit. The token is looked up before the throttle is
    /// asked: a burst of wrong tokens from an address the provider shares (a cloud's egress)
    /// must not lock the provider out, and a right token is no failure to count.
    private func authenticate(_ request: Request) async throws -> ScimClient {
        guard let header = request.headers.first(name: "Authorization"), let secret = ApiTokenService.bearer(header) else {
            throw ScimError(.unauthorized, nil, "Send the SCIM token as Authorization: Bearer TOKEN.")
        }
        let now = Int64(request.settings.clock().timeIntervalSince1970)
        var found: ScimToken?
        if ScimToken.isWellFormed(secret) {
            let digest = ApiTokenSecret.digest(of: secret)
            if let stored = try await store.token(digest: digest), ConstantTime.equal(stored.digest, digest) { found = stored }
        }
        guard let found else {
            // Counted as a failure (a 429 instead, past the address's limit), then refused.
            try await request.signInAttempt(username: nil) { attempt in
                attempt.announcesFailure = false
                attempt.outcome = .failure
            }
            throw ScimError(.unauthorized, nil, "This SCIM token is unknown or revoked.")
        }
        if now - found.lastUsedAt >= 60 {
            do { try await store.touch(id: found.id, now: now) } catch { logger.warning("Cannot note that a SCIM token was used: \(error)") }
        }
        return ScimClient(token: found)
    }

    /// Refuses `change` of `user` when they hold the admin role and ``ScimProvisioning/managesAdmins``
    /// is off: the admins are the users page's to manage, so that a leaked SCIM token cannot
    /// take an admin's account (a new address receives their reset link) or lock them out.
    func guardAdmin(_ user: ManagedUser, _ change: String) throws(ScimError) {
        guard !settings.managesAdmins, user.user.roles.contains(accounts.adminRole) else { return }
        throw Self.adminRefusal("\(user.user.username) has the role \(accounts.adminRole): SCIM does not \(change) an admin.")
    }

    /// The refusal of a change to the admins: a 403, as the token may not make it.
    static func adminRefusal(_ detail: String) -> ScimError {
        ScimError(.forbidden, "mutability", detail + " Manage the admins on the users page, or set ScimProvisioning.managesAdmins.")
    }

    /// The users table SCIM changes; a users file cannot be written (501).
    func users(_ request: Request) throws -> any UserTableStore {
        guard let users = request.service(AuthenticationService.self)?.settings.users as? any UserTableStore else {
            throw ScimError(.notImplemented, nil, "This app's users are kept in a file, which SCIM cannot change: provisioning needs a users table.")
        }
        return users
    }

    /// Records `event` of `username` as `client`'s doing, in the audit and the user's activity;
    /// the byline's token name is quoted, so that a `detail` that ends in `by alice` is not read
    /// as alice's doing.
    func record(_ request: Request, _ client: ScimClient, username: String, event: String, detail: String = "") async {
        guard let service = request.service(AccountsService.self) else { return }
        await service.record(request, username: username, event: event, detail: (detail.isEmpty ? "" : detail + " ") + client.byline)
    }

    /// What the users page's "Disable" and "Enable" do: the store's change, every way in ended
    /// on every instance, and (on a disabling) the set-up links' end. A disabling of a user
    /// who already is disabled (`wasDisabled`: a provider's retry) ends them again without a
    /// second event: a retry after a failure halfway must still end what the first left.
    func setActive(_ active: Bool, of username: String, wasDisabled: Bool = false, _ request: Request, _ client: ScimClient) async throws {
        let change = try await users(request).setDisabled(!active, username: username, keepingOne: accounts.adminRole)
        switch change {
        case .done: break
        case .noSuchUser: throw ScimError.notFound("No user \(username).")
        case .lastAdmin: throw ScimError(.conflict, nil, "\(username) is the last enabled user with the role \(accounts.adminRole): they stay enabled.")
        }
        // Before anything that can throw, so that a failure below leaves no session alive.
        // Enabling ends them too: no cookie or token from before the disabling comes back.
        await request.endSessions(of: username, everyWayIn: true)
        if !(wasDisabled && !active) {
            await record(request, client, username: username, event: active ? ActivityEvent.Kind.userEnabled : ActivityEvent.Kind.userDisabled)
        }
        if !active { try await accounts.setupLinks.removeAll(of: username) }
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

    /// Deletes what an earlier holder of `username` left, as the users page does after a
    /// removal and before an addition (``Accounts/forgetLeftovers(of:_:)``), with what SCIM
    /// kept for them: their `externalId`, profile and SCIM id.
    func forgetLeftovers(of username: String, _ request: Request) async {
        await accounts.forgetLeftovers(of: username, request)
    }

    /// Runs `work` once no other SCIM rename runs on this instance: a rename reads the resource
    /// its id names, renames it and moves the id, and two at once of one resource would each
    /// read the name the other is moving. A rename that waited too long is a 503.
    func oneRenameAtATime<T>(_ work: () async throws -> T) async throws -> T {
        try await renames.withTurn(
            waitingAtMost: .seconds(10), timedOut: ScimError(.serviceUnavailable, nil, "Other renames are under way: please try again in a moment."), work)
    }
}
