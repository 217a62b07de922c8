import Foundation
import MicroAuth
import MicroCore

/// The users page's changes to one user, each named by the form's `username` field.
extension UserAdminRoutes {
    func setPassword(_ request: Request) async throws -> Response {
        let (admin, store) = try begin(request)
        let username = try target(request)
        let password = request.params["new_password"] ?? ""
        if let problem = settings.passwordRules.problem(with: password, username: username) {
            return try await page(request, problem: "\(username): \(problem)")
        }
        let hash = try await hash(password, request)
        let set: Bool
        // The admin knows it: the user is asked to choose their own at their next sign-in.
        do { set = try await store.setPasswordHash(of: username, to: hash, changeDue: true) } catch { throw unavailable(request, error) }
        guard set else { throw HttpError(.notFound, texts.noSuchUser) }
        await request.endSessions(of: username, everyWayIn: true)
        return try await done(request, admin: admin, user: username, event: ActivityEvent.Kind.passwordReset, flash: texts.passwordSet)
    }

    /// Gives the user an email address, or takes it away (an empty field).
    func setEmail(_ request: Request) async throws -> Response {
        let (admin, store) = try begin(request)
        let username = try target(request)
        let typed = String((request.params["email"] ?? "").prefix(1024))
        let email: String?
        do throws(MailAddressError) {
            email = try User.checkedEmail(typed)
        } catch {
            let shown = String(String.UnicodeScalarView(typed.unicodeScalars.map { $0.properties.generalCategory == .control ? "\u{FFFD}" : $0 }))
            return try await refuse(request, username: username, "\(error).", typedEmail: (username, shown))
        }
        let change: EmailChange
        do { change = try await store.setEmail(of: username, to: email) } catch { throw unavailable(request, error) }
        switch change {
        case .done: break
        case .noSuchUser: throw HttpError(.notFound, texts.noSuchUser)
        case .taken: return try await refuse(request, username: username, texts.emailTaken, typedEmail: (username, typed))
        }
        return try await done(
            request, admin: admin, user: username, event: ActivityEvent.Kind.emailChanged, flash: texts.emailChanged, detail: email ?? "none")
    }

    func setRoles(_ request: Request) async throws -> Response {
        let (admin, store) = try begin(request)
        let username = try target(request)
        let typed = String((request.params["roles"] ?? "").prefix(2048))
        guard let roles = Self.roles(typed) else {
            return try await page(request, problem: "\(username): \(texts.badRoles)", typedRoles: (username, typed))
        }
        let change: UserChange
        do {
            change = try await store.setRoles(of: username, to: roles, keepingOne: settings.adminRole)
        } catch {
            throw unavailable(request, error)
        }
        if let refused = try await refusal(change, request, username: username, typedRoles: (username, typed)) { return refused }
        // The user's stamp holds their roles, which ends their sessions only while the roles
        // differ: revoked too, so that a cookie from before a demotion stays dead once the
        // roles are given back. The next sign-in brings the new roles.
        await request.endSessions(of: username)
        return try await done(
            request, admin: admin, user: username, event: ActivityEvent.Kind.rolesChanged, flash: texts.rolesChanged,
            detail: roles.isEmpty ? "none" : roles.joined(separator: " "))
    }

    func setDisabled(_ request: Request, _ disabled: Bool) async throws -> Response {
        let (admin, store) = try begin(request)
        let username = try target(request)
        let change: UserChange
        do {
            change = try await store.setDisabled(disabled, username: username, keepingOne: settings.adminRole)
        } catch {
            throw unavailable(request, error)
        }
        if let refused = try await refusal(change, request, username: username) { return refused }
        // A set-up link made before a disabling stays dead once the user is enabled again.
        if disabled {
            do { try await settings.setupLinks.removeAll(of: Username.key(username)) } catch { throw unavailable(request, error) }
        }
        // Enabling ends them too: the stamp the user had before being disabled is theirs
        // again, and no cookie from before may come back to life with it.
        await request.endSessions(of: username, everyWayIn: true)
        return try await done(
            request, admin: admin, user: username, event: disabled ? ActivityEvent.Kind.userDisabled : ActivityEvent.Kind.userEnabled,
            flash: disabled ? texts.disabled : texts.enabled)
    }

    func remove(_ request: Request) async throws -> Response {
        let (admin, store) = try begin(request)
        let username = try target(request)
        let change: UserChange
        do {
            change = try await store.removeUser(username: username, keepingOne: settings.adminRole)
        } catch {
            throw unavailable(request, error)
        }
        if let refused = try await refusal(change, request, username: username) { return refused }
        await request.endSessions(of: username, everyWayIn: true)
        // The removal is the removed account's last event: recorded before its history is
        // marked as ended, so that a new user of the name does not see it either.
        await service.record(request, username: username, event: ActivityEvent.Kind.userRemoved, detail: "by \(admin.username)")
        await forgetLeftovers(of: username, request)
        request.flash["notice"] = texts.removed.replacingOccurrences(of: "NAME", with: username)
        try request.redirect(to: settings.usersPath)
    }

    /// Turns the user's second factor off, for one who lost their device and recovery codes:
    /// their password alone signs them in again. Their sessions stay.
    func turnTwoFactorOff(_ request: Request) async throws -> Response {
        let (admin, _) = try begin(request)
        let username = try target(request)
        guard let factor = request.service(UsersPageSecondFactorService.self)?.factor else {
            throw HttpError(.notFound, texts.twoFactorNotOn.replacingOccurrences(of: "NAME", with: username))
        }
        let turnedOff: Bool
        do { turnedOff = try await factor.turnOff(for: Username.key(username)) } catch { throw unavailable(request, error) }
        guard turnedOff else { return try await page(request, problem: texts.twoFactorNotOn.replacingOccurrences(of: "NAME", with: username)) }
        return try await done(request, admin: admin, user: username, event: factor.turnedOffEvent, flash: texts.twoFactorReset)
    }

    /// ``Accounts/forgetLeftovers(of:_:)``: after a removal, and before an add.
    func forgetLeftovers(of username: String, _ request: Request) async {
        await settings.forgetLeftovers(of: username, request)
    }

    func endSessions(_ request: Request) async throws -> Response {
        let (admin, store) = try begin(request)
        let username = try target(request)
        let exists: Bool
        do { exists = try await store.find(username: username, using: request.authenticationSettings?.hasher ?? .shared) != nil } catch { throw unavailable(request, error) }
        guard exists else { throw HttpError(.notFound, texts.noSuchUser) }
        await request.endSessions(of: username, everyWayIn: true)
        return try await done(request, admin: admin, user: username, event: ActivityEvent.Kind.sessionsEnded, flash: texts.sessionsEnded)
    }
}
