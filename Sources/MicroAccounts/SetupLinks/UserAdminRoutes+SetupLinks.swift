import Foundation
import MicroAuth
import MicroCore

/// The users page's set-up links: an invitation (a new user with no password, and the link
/// that lets them choose one) and "Send set-up link" for an existing user. The admin never
/// types, sees or hands on a password; the link is shown once, for them to pass on.
extension UserAdminRoutes {
    /// `POST PATH/invite`: `new_username`, `name`, `roles`, `email` (optional), as the add form.
    func invite(_ request: Request) async throws -> Response {
        let (admin, store) = try begin(request)
        var errors = FieldErrors()
        let user = try await newUser(request, store, errors: &errors)
        guard errors.isEmpty else { return try await refuse(request, errors) }
        guard try await addUser(user, hash: StoredUser.noPasswordHash, changeDue: false, store, request, errors: &errors) else {
            return try await refuse(request, errors)
        }
        await service.record(request, username: user.username, event: ActivityEvent.Kind.userAdded, detail: "invited by \(admin.username)")
        return try await link(for: user.username, request, admin: admin)
    }

    /// `POST PATH/setup-link`: `username`. Ends the user's sessions, tokens and passkeys, as
    /// "Set password" does, and gives a link for them to choose a password with instead of
    /// asking the admin for one.
    func sendSetupLink(_ request: Request) async throws -> Response {
        let (admin, store) = try begin(request)
        let username = try target(request)
        let stored: StoredUser?
        do { stored = try await store.find(username: username, using: request.authenticationSettings?.hasher ?? .shared) } catch { throw unavailable(request, error) }
        guard let stored else { throw HttpError(.notFound, texts.noSuchUser) }
        if stored.isDisabled { return try await refuse(request, username: username, texts.setupLinkDisabled) }
        await request.endSessions(of: username, everyWayIn: true)
        return try await link(for: username, request, admin: admin)
    }

    /// Makes the link of `username` (in place of any older one) and shows it, once.
    private func link(for username: String, _ request: Request, admin: User) async throws -> Response {
        let hasher = request.authenticationSettings?.hasher ?? .shared
        let now = Int64(request.session.now)
        let secret = SetupLinkSecret.make()
        let expiresAt = now + settings.setupLinkLifetime.components.seconds
        do {
            guard let stored = try await users(request)?.find(username: username, using: hasher) else { throw HttpError(.notFound, texts.noSuchUser) }
            try await settings.setupLinks.add(
                SetupLink(
                    digest: SetupLinkSecret.digest(of: secret), username: stored.user.username, purpose: .setup,
                    hashDigest: SetupLinkSecret.digest(of: stored.passwordHash), createdAt: now, expiresAt: expiresAt),
                now: now)
        } catch {
            throw unavailable(request, error)
        }
        await service.record(request, username: username, event: ActivityEvent.Kind.setupLinkMade, detail: "by \(admin.username)")
        let url = request.absoluteUrl(settings.setupPath) + "?key=" + secret
        // Shown this once: no copy of the page may be kept, nor its address sent on.
        for (name, value) in SetupLinkRoutes.privateHeaders { request.response.headers.replaceOrAdd(name: name, value: value) }
        if request.wantsJson {
            request.response.status = .created
            return try JsonBody(["username": username, "link": url, "expiresAt": AccountTime.iso(expiresAt)]).makeResponse(for: request)
        }
        return try request.render("admin/setup-link", [
            "title": "Set-up link", "username": username, "link": url, "expiresAt": AccountTime.iso(expiresAt),
            "expiresText": AccountTime.shown(expiresAt), "usersPath": request.url(settings.usersPath),
        ]).makeResponse(for: request)
    }
}
