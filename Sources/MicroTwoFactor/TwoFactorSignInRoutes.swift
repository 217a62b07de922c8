import MicroAccounts
import MicroAuth
import MicroCore

/// The second step of a sign-in for a user with a second factor: the code's page and its check.
struct TwoFactorSignInRoutes {
    let service: TwoFactorService

    func install(in app: App) {
        let path = service.settings.signInPath
        app.get(path + "/?") { request in try await page(request, problem: nil) }
        app.post(path + "/?") { request in try await check(request) }
    }

    private func signInPath(_ request: Request) -> String {
        request.authenticationSettings?.signInPath ?? "/signin"
    }

    private func page(_ request: Request, problem: String?) async throws -> Response {
        guard let stored = try await request.userAtSecondStep() else { try request.redirect(to: signInPath(request)) }
        var values: [String: Any] = ["title": "Two-factor sign-in", "action": request.url(service.settings.signInPath)]
        // A passkey of the user's may answer instead of a code, after a password.
        if request.pendingSecondFactor?.first != .passkey, let alternative = request.service(SecondStepAlternative.self),
            let step = await alternative.offer(request, stored.user.username)
        {
            values["passkeyStep"] = step
        }
        guard let problem else { return try request.render("two-factor/sign-in", values).makeResponse(for: request) }
        var errors = FieldErrors()
        errors.add("code", problem)
        // The code typed is not shown again: a wrong one is no use, a right one is spent.
        let error = FormError(errors, values: [], status: .unprocessableEntity)
        if request.wantsJson { throw error }
        return try request.render("two-factor/sign-in", values, form: error).makeResponse(for: request)
    }

    private func check(_ request: Request) async throws -> Response {
        // The user as the store holds them now: a password changed (or a user removed) since
        // the first step ends it.
        guard let stored = try await request.userAtSecondStep(), let authentication = request.authenticationSettings else {
            try request.redirect(to: signInPath(request))
        }
        let check = try await request.checkSecondFactor(request.params["code"] ?? "", of: stored.user.username)
        guard let method = check.method else { return try await page(request, problem: check.refusal(service.settings)) }
        let first = request.pendingSecondFactor?.first
        request.session.remove(PendingSecondFactor.key)
        try await request.signIn(checked: stored, detail: first == .passkey ? "passkey+" + method.rawValue : method.rawValue)
        if method == .recoveryCode {
            await request.recordAccountEvent(ActivityEvent.Kind.recoveryCodeUsed, of: stored.user.username, detail: "")
        }
        request.flash[authentication.flashKey] = authentication.welcomeMessage(stored.user)
        try request.redirect(to: request.takeOriginalPath() ?? authentication.homePath)
    }
}
