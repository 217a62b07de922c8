import MicroAuth
import MicroCore

/// "Forgot password" (``Accounts/forgotPath``, with ``Accounts/mail``), linked from the sign-in
/// page: `GET` shows a form with `email`; `POST` mails a reset link (a ``SetupLink`` of purpose
/// `reset`, for ``AccountMail/resetLinkLifetime``) to the enabled user with a password whose
/// address it is, and answers every address, known or not, with the same page after the same
/// least time, so that the page tells nobody which addresses have accounts.
///
/// Bounds: each client address gets the sign-in throttle's limits (its own count: a flood of
/// these does not lock the address out of signing in); each user gets at most
/// ``AccountMail/resetsPerUser`` messages per ``AccountMail/resetWindow``, on every instance;
/// the messages wait in a bounded ``/MicroCore/MailQueue``. While the mail server fails, every
/// post is a `503` alike.
///
/// Users without a password (invited, not yet set up; single sign-on only) get no message:
/// their way in is their invitation or the provider, and a password of their own would open
/// another the provider's offboarding does not reach.
struct ForgotPasswordRoutes {
    let service: AccountsService
    let mail: AccountMail
    let queue: MailQueue
    /// The client addresses' counts, with the sign-in throttle's limits: made at the first post,
    /// when `Authentication`'s settings are there to read.
    private let throttles = Locked<SignInThrottle?>(nil)
    var settings: Accounts { service.settings }

    /// The least time every post takes: longer than looking a user up and counting a message.
    static let answerTime: Duration = .milliseconds(400)

    init(service: AccountsService, mail: AccountMail, queue: MailQueue) {
        self.service = service
        self.mail = mail
        self.queue = queue
    }

    private func throttle(_ request: Request) -> SignInThrottle {
        throttles.withLock { throttle in
            if let throttle { return throttle }
            let made = SignInThrottle(limits: request.authenticationSettings?.throttleLimits ?? SignInThrottle.Limits())
            throttle = made
            return made
        }
    }

    func install(in app: App) {
        let path = settings.forgotPath
        app.get(path + "/?") { request in try page(request) }
        app.post(path + "/?") { request in try await ask(request) }
        app.addSignInPageAddition(SignInPageAddition { request in
            guard Self.users(request) != nil else { return nil }
            return #"<p class="forgot-password"><a href="\#(Html.escape(request.url(path)))">Forgot your password?</a></p>"#
        })
    }

    /// The store a reset sets the password in: one an admin can change, while passwords sign in
    /// (with `MICRO_PASSWORD_SIGNIN=off` a password opens nothing, and there is no page).
    private static func users(_ request: Request) -> (any ManagedUserStore)? {
        guard let authentication = request.authenticationSettings, authentication.acceptsPasswords else { return nil }
        return authentication.users as? any ManagedUserStore
    }

    private func page(_ request: Request, email: String = "", error: FormError? = nil) throws -> Response {
        guard Self.users(request) != nil else { throw HttpError(.notFound) }
        request.response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        let values: [String: Any] = ["title": "Forgot your password?", "action": request.url(settings.forgotPath), "email": email]
        if let error {
            if request.wantsJson { throw error }
            return try request.render("account/forgot", values, form: error).makeResponse(for: request)
        }
        return try request.render("account/forgot", values).makeResponse(for: request)
    }

    private func ask(_ request: Request) async throws -> Response {
        let started = ContinuousClock.now
        guard let users = Self.users(request) else { throw HttpError(.notFound) }
        let now = Int64(request.session.now)
        let throttle = throttle(request)
        let address = request.clientAddress.map(throttle.key(address:))
        switch throttle.begin(username: nil, address: address, now: now) {
        case .proceed:
            break
        case .refuse(let wait):
            let minutes = (wait + 59) / 60
            throw HttpError(.tooManyRequests, "Too many requests from your address. Try again in \(minutes) minute\(minutes == 1 ? "" : "s").",
                headers: ["Retry-After": String(wait)])
        case .wait:
            throw HttpError(.tooManyRequests, "Too many requests from your address at once. Try again in a moment.", headers: ["Retry-After": "1"])
        }
        // Every post counts, whatever it finds: the limit is on asking.
        defer { throttle.finish(username: nil, address: address, outcome: .failure, now: now) }
        let typed = String((request.params["email"] ?? "").prefix(1024)).trimmingSpaces()
        let email: MailAddress
        do throws(MailAddressError) {
            email = try MailAddress(typed)
        } catch {
            var errors = FieldErrors()
            errors.add("email", error.description.prefix(1).uppercased() + error.description.dropFirst() + ".")
            return try page(request, email: typed, error: FormError(errors, values: [], status: .unprocessableEntity))
        }
        // Asked before anything is looked up, so that it answers every address alike.
        if let reason = queue.recentFailure(within: mail.outagePause) ?? (queue.hasRoom ? nil : "the mail queue is full") {
            request.logger.error("Forgot password: no message can be sent now (\(reason)).")
            throw HttpError(.serviceUnavailable, settings.forgotUnavailableMessage, headers: ["Retry-After": String(mail.outagePause.components.seconds)])
        }
        await sendReset(to: email, users, request, now: now)
        try? await Task.sleep(until: started + Self.answerTime, clock: .continuous)
        request.response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        let values: [String: Any] = ["title": "Check your mail", "message": settings.forgotSentMessage, "signInPath": request.url(request.authenticationSettings?.signInPath ?? "/signin")]
        if request.wantsJson {
            request.response.status = .accepted
            return try JsonBody(["message": settings.forgotSentMessage]).makeResponse(for: request)
        }
        return try request.render("account/forgot-sent", values).makeResponse(for: request)
    }

    /// Mails a reset link when `email` is an enabled user's with a password and the user's count
    /// allows; else nothing. What fails is logged, never shown: the page is the same.
    private func sendReset(to email: MailAddress, _ users: any ManagedUserStore, _ request: Request, now: Int64) async {
        guard let authentication = request.authenticationSettings else { return }
        do {
            guard let username = try await users.username(withEmail: email),
                let stored = try await users.find(username: username, using: authentication.hasher),
                !stored.isDisabled, stored.hasPassword
            else { return }
            guard try await settings.setupLinks.countReset(
                of: stored.user.username, now: now, limit: mail.resetsPerUser, window: mail.resetWindow.components.seconds)
            else {
                request.logger.notice("Forgot password: \(stored.user.username) was sent \(mail.resetsPerUser) messages within the hour; no more now.")
                return
            }
            let made = SetupLink.make(for: stored.user.username, passwordHash: stored.passwordHash, purpose: .reset, now: now, lifetime: mail.resetLinkLifetime)
            try await settings.setupLinks.add(made.link, now: now)
            let link = request.absoluteUrl(settings.setupPath) + "?key=" + made.secret
            // To the address as the user gave it, not as it was typed here.
            let to = stored.user.email.flatMap { try? MailAddress($0) } ?? email
            let message = SetupLinkMail.reset(mail, to: to, user: stored.user, link: link, expires: AccountTime.shown(made.link.expiresAt), site: request.absoluteUrl("/"))
            guard queue.enqueue(message) else { return }
            await service.record(request, username: stored.user.username, event: ActivityEvent.Kind.resetLinkMailed, detail: "to \(to)")
        } catch {
            request.logger.error("Forgot password: no message for \(email): \(error)")
        }
    }
}
