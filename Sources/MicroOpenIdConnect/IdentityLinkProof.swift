#if OpenIdConnect
import Foundation
import MicroAuth
import MicroCore

/// The page where a person whose provider account names a store user with a password proves
/// that user (`GET` and `POST PATH/link`): the password, checked as the sign-in form checks it
/// (throttled; a wrong one is the user's failed sign-in), and the code where the user has
/// two-factor on. A right answer links the provider's identity to the user and signs the
/// person in; later single sign-ons follow the link.
struct IdentityLinkProof: Sendable {
    let flow: OpenIdConnectFlow
    var settings: OpenIdConnect { flow.settings }
    var path: String { settings.path + "/link" }

    func install(in app: App) {
        app.get(path) { request in try await page(request) }
        app.post(path) { request in try await prove(request) }
    }

    private func now(_ request: Request) -> Int64 { Int64(request.settings.clock().timeIntervalSince1970) }

    private func pending(_ request: Request) -> PendingLink? {
        request.session.pendingLink(now: now(request), lifetime: settings.proofLifetime.components.seconds)
    }

    /// The sign-in page, where a wait that expired or was never begun sends the browser.
    private func restart(_ request: Request, _ message: String) throws -> Never {
        let authentication = request.authenticationSettings
        request.flash[authentication?.flashKey ?? "notice"] = message
        try request.redirect(to: authentication?.signInPath ?? "/signin")
    }

    private static let expired = "The single sign-on waiting for your password has expired. Please sign in again."

    func page(_ request: Request) async throws -> Response {
        guard let pending = pending(request) else { try restart(request, Self.expired) }
        return try await form(request, pending, problem: nil)
    }

    /// The form. Whoever the user is, it is the same page: the person is not proven yet, so it
    /// offers the code's field wherever the app has a second factor, rather than saying whether
    /// this user turned one on.
    private func form(_ request: Request, _ pending: PendingLink, problem: String?) async throws -> Response {
        let code = request.offersSecondStep
        let provider = Html.escape(settings.name)
        let user = Html.escape(pending.username)
        let title = "Link your account at \(provider)"
        let codeField = code ? """
              <p><label for="code">Code from your authenticator app (or a recovery code), if \(user) has a second factor</label><br>
              <input id="code" name="code" autocomplete="one-time-code" inputmode="numeric"></p>

            """ : ""
        let problemLine = problem.map { "<p class=\"field-error\" role=\"alert\">\(Html.escape($0))</p>\n" } ?? ""
        return Response(status: problem == nil ? .ok : .unprocessableEntity, contentType: "text/html; charset=utf-8", body: """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title)</title></head>
            <body><main><h1>\(title)</h1>
            <p>Your account at \(provider) names the user <strong>\(user)</strong> here. It is linked to that user only once you
            show that you are \(user): enter \(user)'s password\(code ? " (and code, if \(user) has a second factor)" : ""). Later sign-ins with \(provider) ask for neither.</p>
            \(problemLine)<form method="post" action="\(Html.escape(request.url(path)))">
              <input type="hidden" name="_csrf" value="\(Html.escape(request.csrfToken))">
              <p><label for="password">Password of \(user)</label><br>
              <input id="password" name="password" type="password" autocomplete="current-password" required></p>
            \(codeField)  <p><button type="submit">Link and sign in</button></p>
            </form>
            <p><a href="\(Html.escape(request.url(request.authenticationSettings?.signInPath ?? "/signin")))">Cancel</a></p>
            </main></body></html>

            """)
    }

    func prove(_ request: Request) async throws -> Response {
        guard var pending = pending(request) else { try restart(request, Self.expired) }
        guard let authentication = request.authenticationSettings else {
            throw HttpError(.forbidden, "Single sign-on failed: this app has no user store.")
        }
        let stored: StoredUser?
        do { stored = try await authentication.users.find(username: pending.username, using: authentication.hasher) } catch { throw unavailable(request, error) }
        // The user as the store holds them now: changed, disabled or removed since, the wait ends.
        guard let stored, !stored.isDisabled, CredentialStamp(stored).text == pending.stamp else {
            request.session.remove(PendingLink.sessionKey)
            request.logger.notice("Single sign-on link of subject \(LogText.escape(pending.subject)) to \(pending.username) given up: the user changed meanwhile")
            try restart(request, "The account changed while single sign-on waited for its password. Please sign in again.")
        }
        let password = String((request.params["password"] ?? "").prefix(Password.maximumLength + 1))
        let code = String((request.params["code"] ?? "").prefix(64))
        let answer: StoredUser?
        do {
            answer = try await request.proveAccount(username: pending.username, password: password, code: code)
        } catch let error as HttpError {
            throw error
        } catch {
            throw unavailable(request, error)
        }
        guard let proven = answer else {
            pending.failures += 1
            request.logger.notice("Single sign-on link of subject \(LogText.escape(pending.subject)) to \(pending.username): a wrong password or code")
            guard pending.failures < PendingLink.maximumFailures else {
                request.session.remove(PendingLink.sessionKey)
                try restart(request, "Too many wrong answers: the single sign-on was given up. Please sign in again.")
            }
            try request.session.set(PendingLink.sessionKey, pending)
            return try await form(request, pending, problem: "That is not the password\(request.offersSecondStep ? " or the code" : "") of \(pending.username).")
        }
        // Taken once: a right answer ends the wait, whatever follows.
        request.session.remove(PendingLink.sessionKey)
        let identity = pending.identity
        let now = Int64(request.settings.clock().timeIntervalSince1970)
        let linked: Bool
        do { linked = try await settings.links.link(identity, to: proven.user.username, now: now) } catch { throw unavailable(request, error) }
        guard linked else {
            request.logger.warning(
                "Single sign-on failed: \(proven.user.username) was linked to another subject at \(LogText.escape(identity.issuer)) while subject \(LogText.escape(identity.subject)) proved the password")
            throw OpenIdConnectUserMapping.unmatched.httpError
        }
        let token = pending.hint.flatMap { flow.hints.take($0, now: now) }
        let result = OpenIdConnectUserMapping.Result(user: proven.user, credentialStamp: CredentialStamp(proven), linkedBy: pending.claim)
        try await flow.finish(
            request, result, identity: identity, providerSessionId: pending.providerSessionId, syncedRoles: pending.roles, idToken: token,
            provenBy: "password")
    }

    private func unavailable(_ request: Request, _ error: any Error) -> any Error {
        if error is HttpError { return error }
        request.logger.error("Single sign-on cannot read the user store or the identity links: \(error)")
        return HttpError(.serviceUnavailable, "Single sign-on is unavailable right now. Please try again in a minute.", headers: ["Retry-After": "30"])
    }
}
#endif
