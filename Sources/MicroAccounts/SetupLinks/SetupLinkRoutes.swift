import Foundation
import MicroAuth
import MicroCore

/// The page a ``SetupLink`` opens (``Accounts/setupPath``): `GET PATH?key=SECRET` keeps the
/// secret in the (encrypted) session and leads to `PATH`, so that the address bar, the history
/// and any `Referer` lose it; `GET PATH` shows the form (`new_password`,
/// `new_password_confirmation`, under ``Accounts/passwordRules``); `POST PATH` takes the link
/// (once, whatever instance), sets the password, ends every session and token of the user,
/// records `password_set`, and signs the person in as the sign-in form does (a second factor is
/// still asked). A used, expired, superseded, malformed or foreign link is one answer, `410`
/// with a page saying so, and counts against the client's address as a failed sign-in does.
/// Every answer is `no-store` with `Referrer-Policy: no-referrer`.
struct SetupLinkRoutes {
    let service: AccountsService
    var settings: Accounts { service.settings }

    /// The session key of the secret between the link's first request and the form's post.
    static let sessionKey = "_setup_link"

    func install(in app: App) {
        let path = settings.setupPath
        app.get(path + "/?") { request in try await show(request) }
        app.post(path + "/?") { request in try await choose(request) }
    }

    private func show(_ request: Request) async throws -> Response {
        keepPrivate(request)
        if request.params.query.contains(where: { $0.name == "key" }) {
            let key = request.params.query.last { $0.name == "key" }?.value ?? ""
            guard try await live(key, request) != nil else { throw try await gone(request) }
            request.session[Self.sessionKey] = key
            try request.redirect(to: settings.setupPath, status: .seeOther)
        }
        guard let (link, _) = try await live(request.session[Self.sessionKey] ?? "", request) else { throw try await gone(request) }
        return try form(request, link, error: nil)
    }

    private func choose(_ request: Request) async throws -> Response {
        keepPrivate(request)
        let key = request.session[Self.sessionKey] ?? ""
        guard let (link, _) = try await live(key, request) else { throw try await gone(request) }
        let new = request.params["new_password"] ?? ""
        let confirmation = request.params["new_password_confirmation"] ?? ""
        var errors = FieldErrors()
        if let problem = settings.passwordRules.problem(with: new, username: link.username) {
            errors.add("new_password", problem)
        } else if new != confirmation {
            errors.add("new_password_confirmation", settings.confirmationMessage)
        }
        if !errors.isEmpty { return try form(request, link, error: FormError(errors, values: [], status: .unprocessableEntity)) }
        guard let authentication = request.service(AuthenticationService.self), let users = authentication.settings.users as? any ManagedUserStore
        else { throw try await gone(request) }
        let now = Int64(request.session.now)
        // Taken before anything is written: of two posts racing, on this instance or another,
        // the one that did not get it changes nothing.
        guard let taken = try await unavailable(request, { try await settings.setupLinks.take(digest: link.digest, now: now) }),
            let stored = try await unavailable(request, { try await users.find(username: taken.username, using: authentication.settings.hasher) }),
            SetupLinkSecret.digest(of: stored.passwordHash) == taken.hashDigest
        else { throw try await gone(request) }
        let cost = authentication.settings.passwordCost
        let hash = try await authentication.settings.hasher.run { try Password.hash(new, cost: cost) }
        // Against the hash the link was made for: a password set meanwhile wins.
        guard try await unavailable(request, { try await users.replaceOwnPasswordHash(of: taken.username, stored.passwordHash, with: hash) })
        else { throw try await gone(request) }
        request.session.remove(Self.sessionKey)
        await request.endSessions(of: taken.username, everyWayIn: true)
        await service.record(request, username: taken.username, event: ActivityEvent.Kind.passwordSet, detail: "by \(taken.purpose.rawValue) link")
        // Signed in as the sign-in form would: the throttle, a second factor's step.
        guard try await request.signIn(username: taken.username, password: new) != nil else {
            request.flash["notice"] = settings.setupDoneMessage
            try request.redirect(to: request.authenticationSettings?.signInPath ?? "/signin", status: .seeOther)
        }
        request.flash["notice"] = settings.setupDoneMessage
        try request.redirect(to: settings.prefix, status: .seeOther)
    }

    /// The live link of `key` and its user's stored hash: well-formed, kept, not expired, and
    /// made for the password hash the user has now.
    private func live(_ key: String, _ request: Request) async throws -> (SetupLink, StoredUser)? {
        guard SetupLinkSecret.isWellFormed(key), let authentication = request.service(AuthenticationService.self) else { return nil }
        let now = Int64(request.session.now)
        guard let link = try await unavailable(request, { try await settings.setupLinks.find(digest: SetupLinkSecret.digest(of: key), now: now) }),
            let stored = try await unavailable(request, { try await authentication.settings.users.find(username: link.username, using: authentication.settings.hasher) }),
            !stored.isDisabled, SetupLinkSecret.digest(of: stored.passwordHash) == link.hashDigest
        else { return nil }
        return (link, stored)
    }

    private func form(_ request: Request, _ link: SetupLink, error: FormError?) throws -> Response {
        let values: [String: Any] = [
            "title": link.purpose == .reset ? "Choose a new password" : "Choose your password", "username": link.username,
            "action": request.url(settings.setupPath), "minimumLength": settings.passwordRules.minimumLength,
        ]
        if let error {
            if request.wantsJson { throw error }
            return try request.render("account/setup", values, form: error).makeResponse(for: request)
        }
        return try request.render("account/setup", values).makeResponse(for: request)
    }

    /// The one answer to every link that opens nothing; counted against the client's address.
    private func gone(_ request: Request) async throws -> HttpError {
        request.session.remove(Self.sessionKey)
        try await request.signInAttempt(username: nil) { attempt in attempt.announcesFailure = false }
        return HttpError(.gone, settings.setupGoneMessage, headers: Self.privateHeaders)
    }

    /// A store that cannot answer now is a `503`, never a used link.
    private func unavailable<T>(_ request: Request, _ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch let error as HttpError {
            throw error
        } catch {
            request.logger.error("Set-up links unavailable: \(error)")
            throw HttpError(.serviceUnavailable, "This page is unavailable right now. Please try again in a minute.", headers: ["Retry-After": "60"])
        }
    }

    static let privateHeaders: HttpHeaders = ["Cache-Control": "no-store", "Referrer-Policy": "no-referrer"]

    /// No copy of the page anywhere, and no `Referer` carrying its address.
    private func keepPrivate(_ request: Request) {
        for (name, value) in Self.privateHeaders { request.response.headers.replaceOrAdd(name: name, value: value) }
    }
}
