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
        guard try await addUser(user, hash: StoredUser.newNoPasswordHash(), changeDue: false, store, request, errors: &errors) else {
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

    /// Makes the link of `username` (in place of any older one), mails it to the user's address
    /// when there is mail and an address, and shows it, once: a message that could not be sent
    /// is a 503 that still shows the link, for the admin to pass on (the user is added).
    private func link(for username: String, _ request: Request, admin: User) async throws -> Response {
        let hasher = request.authenticationSettings?.hasher ?? .shared
        let now = Int64(request.session.now)
        let stored: StoredUser
        let made: (link: SetupLink, secret: String)
        do {
            guard let found = try await users(request)?.find(username: username, using: hasher) else { throw HttpError(.notFound, texts.noSuchUser) }
            stored = found
            made = SetupLink.make(for: stored.user.username, passwordHash: stored.passwordHash, purpose: .setup, now: now, lifetime: settings.setupLinkLifetime)
            try await settings.setupLinks.add(made.link, now: now)
        } catch let error as HttpError {
            throw error
        } catch {
            throw unavailable(request, error)
        }
        await service.record(request, username: username, event: ActivityEvent.Kind.setupLinkMade, detail: "by \(admin.username)")
        let url = request.absoluteUrl(settings.setupPath) + "?key=" + made.secret
        let expiresAt = made.link.expiresAt
        // With mail and an address: sent (`mailedTo`), or not (`mailFailed`, a 503).
        var mailedTo: String?
        var mailFailed: String?
        if let mail = settings.mail, let queue = service.mailQueue, let address = stored.user.email.flatMap({ try? MailAddress($0) }) {
            let message = SetupLinkMail.invitation(mail, to: address, user: stored.user, link: url, expires: AccountTime.shown(expiresAt), site: request.absoluteUrl("/"))
            if let failure = await queue.send(message, waitingAtMost: mail.sendTimeout) {
                request.logger.error("The set-up link of \(username) was not mailed to \(address): \(failure)")
                request.response.status = .serviceUnavailable
                mailFailed = address.description
            } else {
                await service.record(request, username: username, event: ActivityEvent.Kind.setupLinkMailed, detail: "to \(address)")
                mailedTo = address.description
            }
        }
        // Shown this once: no copy of the page may be kept, nor its address sent on.
        for (name, value) in SetupLinkRoutes.privateHeaders { request.response.headers.replaceOrAdd(name: name, value: value) }
        if request.wantsJson {
            if mailFailed == nil { request.response.status = .created }
            var json: [String: String] = ["username": username, "link": url, "expiresAt": AccountTime.iso(expiresAt)]
            json["mailedTo"] = mailedTo
            json["error"] = mailFailed.map { "The message to \($0) could not be sent: pass the link on yourself." }
            return try JsonBody(json).makeResponse(for: request)
        }
        var values: [String: any Sendable] = [
            "title": "Set-up link", "username": username, "link": url, "expiresAt": AccountTime.iso(expiresAt),
            "expiresText": AccountTime.shown(expiresAt), "usersPath": request.url(settings.usersPath),
        ]
        values["mailedTo"] = mailedTo
        values["mailFailed"] = mailFailed
        return try request.render("admin/setup-link", values).makeResponse(for: request)
    }
}
