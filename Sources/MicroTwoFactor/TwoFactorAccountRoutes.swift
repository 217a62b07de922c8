import MicroAccounts
import MicroAuth
import MicroCore

/// The account pages of the second factor: its state, turning it on (a secret confirmed by a
/// code), off, and new recovery codes.
struct TwoFactorAccountRoutes {
    let service: TwoFactorService
    let accounts: Accounts
    private var settings: TwoFactorSettings { service.settings }

    /// The session key of a secret being set up, sealed: nothing is stored before a code
    /// confirms it.
    static let setupKey = "_two_factor_setup"

    func install(in app: App) {
        let base = service.accountsPrefix + "/two-factor"
        app.get(base + "/?") { request in try await status(request) }
        app.post(base + "/setup/?") { request in try await setup(request) }
        app.post(base + "/enable/?") { request in try await enable(request) }
        app.post(base + "/disable/?") { request in try await disable(request) }
        app.post(base + "/recovery-codes/?") { request in try await regenerate(request) }
    }

    private var base: String { service.accountsPrefix + "/two-factor" }

    /// The store, where users can have a second factor: a writable user store and a database.
    private func store(_ request: Request) -> TwoFactorStore? {
        guard request.service(AuthenticationService.self)?.settings.users is any PasswordUpgradingUserStore else { return nil }
        return service.store
    }

    // MARK: Pages

    private func status(_ request: Request, problem: (field: String, message: String)? = nil) async throws -> Response {
        let user = try request.authenticate()
        var values: [String: Any] = ["title": "Two-factor sign-in"]
        if let store = store(request) {
            let name = Username.key(user.username)
            if try await store.record(of: name) != nil {
                values["on"] = true
                values["codesLeft"] = try await store.codesLeft(of: name)
                values["disableAction"] = request.url(base + "/disable")
                values["recoveryCodesAction"] = request.url(base + "/recovery-codes")
            } else if service.key == nil {
                values["unavailable"] = settings.noKeyMessage
            } else {
                values["off"] = true
                values["setupAction"] = request.url(base + "/setup")
                if mustTurnOn(user) { values["required"] = settings.requiredMessage }
            }
        } else {
            values["unavailable"] = settings.unavailableMessage
        }
        if request.wantsJson, problem == nil {
            return try JsonBody(TwoFactorStatusJson(on: values["on"] != nil, recoveryCodesLeft: values["codesLeft"] as? Int))
                .makeResponse(for: request)
        }
        return try render(request, "account/two-factor", values, problem: problem)
    }

    /// Whether `user` must have a second factor (``TwoFactorSettings/requiredForRoles``).
    func mustTurnOn(_ user: User) -> Bool {
        guard let roles = settings.requiredForRoles else { return false }
        return roles.isEmpty || roles.contains(where: user.has(role:))
    }

    private func render(_ request: Request, _ template: String, _ values: [String: Any], problem: (field: String, message: String)?) throws -> Response {
        guard let problem else { return try request.render(template, values).makeResponse(for: request) }
        var errors = FieldErrors()
        errors.add(problem.field, problem.message)
        // Nothing typed comes back: passwords and codes are not shown again.
        let error = FormError(errors, values: [], status: .unprocessableEntity)
        if request.wantsJson { throw error }
        return try request.render(template, values, form: error).makeResponse(for: request)
    }

    // MARK: Turning it on

    private func setup(_ request: Request) async throws -> Response {
        let user = try request.authenticate()
        guard let store = store(request) else { throw HttpError(.forbidden, settings.unavailableMessage) }
        guard let key = service.key else { throw HttpError(.serviceUnavailable, settings.noKeyMessage) }
        // Checked as a sign-in is: the same throttle, so this form is no way around it.
        guard try await request.checkCredentials(username: user.username, password: request.params["current_password"] ?? "") != nil else {
            return try await status(request, problem: ("current_password", accounts.wrongPasswordMessage))
        }
        guard try await store.record(of: Username.key(user.username)) == nil else {
            return try await status(request, problem: ("current_password", settings.alreadyOnMessage))
        }
        let secret = Totp.randomSecret()
        request.session[Self.setupKey] = try key.seal(secret, context: TwoFactorService.setupContext(of: user.username))
        return try setupPage(request, user: user, secret: secret, problem: nil)
    }

    private func setupPage(_ request: Request, user: User, secret: [UInt8], problem: String?) throws -> Response {
        let encoded = Base32.encode(secret, padded: false)
        let uri = OtpAuthUri.make(issuer: settings.issuer, username: user.username, secret: encoded)
        let values: [String: Any] = [
            "title": "Turn on two-factor sign-in", "secret": encoded, "uri": uri, "qrCode": QrCodeSvg.make(uri) ?? "",
            "enableAction": request.url(base + "/enable"),
        ]
        return try render(request, "account/two-factor-setup", values, problem: problem.map { ("code", $0) })
    }

    private func enable(_ request: Request) async throws -> Response {
        let user = try request.authenticate()
        guard let store = store(request) else { throw HttpError(.forbidden, settings.unavailableMessage) }
        guard let key = service.key else { throw HttpError(.serviceUnavailable, settings.noKeyMessage) }
        guard let sealed = request.session[Self.setupKey], let secret = key.open(sealed, context: TwoFactorService.setupContext(of: user.username))
        else {
            throw HttpError(.unprocessableEntity, "No setup is under way: start again from the two-factor page.")
        }
        let now = request.session.now
        guard let step = Totp(secret: secret).matchingStep(of: String((request.params["code"] ?? "").prefix(64)), at: now) else {
            return try setupPage(request, user: user, secret: secret, problem: settings.wrongCodeMessage)
        }
        let name = Username.key(user.username)
        // An old copy of the cookie still holds a setup: it must not replace the secret and the
        // codes of a second factor that is on (turning it off takes the password and a code).
        guard try await store.record(of: name) == nil else {
            request.session.remove(Self.setupKey)
            throw HttpError(.conflict, settings.alreadyOnMessage)
        }
        let codes = RecoveryCodes.make()
        try await store.enable(
            name, sealedSecret: try key.seal(secret, context: TwoFactorService.context(of: user.username)), usedStep: step,
            codeDigests: TwoFactorService.digests(of: codes, username: user.username, key: key), now: now)
        request.session.remove(Self.setupKey)
        service.noteTurnedOn(user.username, now: now)
        await request.recordAccountEvent(ActivityEvent.Kind.twoFactorEnabled, of: user.username, detail: "")
        return try codesPage(request, codes)
    }

    private func codesPage(_ request: Request, _ codes: [String]) throws -> Response {
        // Shown once: never kept by a cache or the back button.
        request.response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        if request.wantsJson { return try JsonBody(["recoveryCodes": codes]).makeResponse(for: request) }
        return try request.render("account/recovery-codes", ["title": "Your recovery codes", "codes": codes, "twoFactorPath": request.url(base)])
            .makeResponse(for: request)
    }

    // MARK: Once it is on

    private func disable(_ request: Request) async throws -> Response {
        let user = try request.authenticate()
        guard let store = store(request) else { throw HttpError(.forbidden, settings.unavailableMessage) }
        guard try await request.checkCredentials(username: user.username, password: request.params["current_password"] ?? "") != nil else {
            return try await status(request, problem: ("current_password", accounts.wrongPasswordMessage))
        }
        let check = try await request.checkSecondFactor(request.params["code"] ?? "", of: user.username)
        guard let method = check.method else { return try await status(request, problem: ("code", check.refusal(settings))) }
        if method == .recoveryCode {
            await request.recordAccountEvent(ActivityEvent.Kind.recoveryCodeUsed, of: user.username, detail: "")
        }
        try await store.disable(Username.key(user.username))
        request.session.remove(TwoFactorRequirement.confirmedKey)
        await request.recordAccountEvent(ActivityEvent.Kind.twoFactorDisabled, of: user.username, detail: "")
        request.flash["notice"] = settings.disabledMessage
        try request.redirect(to: base)
    }

    private func regenerate(_ request: Request) async throws -> Response {
        let user = try request.authenticate()
        guard store(request) != nil else { throw HttpError(.forbidden, settings.unavailableMessage) }
        guard try await service.isOn(user.username) else { try request.redirect(to: base) }
        let check = try await request.checkSecondFactor(request.params["code"] ?? "", of: user.username)
        guard let method = check.method else { return try await status(request, problem: ("code", check.refusal(settings))) }
        if method == .recoveryCode {
            await request.recordAccountEvent(ActivityEvent.Kind.recoveryCodeUsed, of: user.username, detail: "")
        }
        let codes = try await service.newRecoveryCodes(of: user.username)
        await request.recordAccountEvent(ActivityEvent.Kind.recoveryCodesRegenerated, of: user.username, detail: "")
        return try codesPage(request, codes)
    }
}

/// `GET /account/two-factor` as JSON.
struct TwoFactorStatusJson: Encodable, Sendable {
    let on: Bool
    let recoveryCodesLeft: Int?
}
