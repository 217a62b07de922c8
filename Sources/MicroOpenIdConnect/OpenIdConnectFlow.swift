#if OpenIdConnect
import Foundation
import Logging
import Micro

/// The flow's routes while the app runs: start, callback, the button page, sign-out.
final class OpenIdConnectFlow: Sendable {
    let settings: OpenIdConnect
    let provider: OpenIdProvider
    let verifier: IdTokenVerifier

    init(settings: OpenIdConnect, provider: OpenIdProvider) {
        self.settings = settings
        self.provider = provider
        verifier = IdTokenVerifier(
            issuer: settings.issuer, clientId: settings.clientId, trustedAudiences: settings.trustedAudiences, leeway: settings.clockSkew)
    }

    private var callbackPath: String { settings.path + "/callback" }

    /// `GET PATH`: starts nothing (a flow started by a link would be a login CSRF); shows the
    /// button, whose form posts with the CSRF token.
    func buttonPage(_ request: Request) throws -> String {
        request.response.contentType = "text/html; charset=utf-8"
        let label = Html.escape("Sign in with \(settings.name)")
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(label)</title></head>
            <body><main><h1>\(label)</h1>
            <form method="post" action="\(Html.escape(request.url(settings.path)))">
              <input type="hidden" name="_csrf" value="\(Html.escape(request.csrfToken))">
              <button type="submit">\(label)</button>
            </form>
            </main></body></html>

            """
    }

    /// `POST PATH`: a fresh `state`, `nonce` and PKCE verifier in the session, and `303` to
    /// the provider's authorization endpoint.
    func start(_ request: Request) async throws -> Never {
        let metadata = try await answering(request) { () async throws(OpenIdConnectError) in try await provider.discover() }
        let now = Int64(request.settings.clock().timeIntervalSince1970)
        let flow = PendingFlow.start(at: now)
        try request.session.addPendingFlow(flow, limit: settings.maximumPendingFlows, lifetime: settings.flowLifetime)
        let query = [
            ("response_type", "code"), ("client_id", settings.clientId), ("redirect_uri", request.absoluteUrl(callbackPath)),
            ("scope", settings.scopes.joined(separator: " ")), ("state", flow.state), ("nonce", flow.nonce),
            ("code_challenge", flow.challenge), ("code_challenge_method", "S256"),
        ].map { FormEncoding.encode($0.0) + "=" + FormEncoding.encode($0.1) }.joined(separator: "&")
        let endpoint = metadata.authorizationEndpoint
        try request.redirect(to: endpoint + (endpoint.contains("?") ? "&" : "?") + query, status: .seeOther)
    }

    /// `GET PATH/callback`: the state (once), the code exchanged, the ID token verified, the
    /// user mapped and signed in.
    func complete(_ request: Request) async throws -> Never {
        let authentication = request.authenticationSettings
        let signInPath = authentication?.signInPath ?? "/signin"
        let flashKey = authentication?.flashKey ?? "notice"
        let now = request.settings.clock()
        let state = request.params["state"] ?? ""
        let flow = try await answering(request) { () throws(OpenIdConnectError) -> PendingFlow in
            guard !state.isEmpty, state.utf8.count <= 256 else { throw .invalidState("the callback has no state") }
            guard let flow = try? request.session.takePendingFlow(state: state, now: Int64(now.timeIntervalSince1970), lifetime: settings.flowLifetime)
            else { throw .invalidState("the callback's state is not one this session is waiting for (unknown, used or expired)") }
            return flow
        }
        if let error = request.params["error"] {
            request.logger.notice("Single sign-on refused by the provider: \(error.prefix(100)) \(request.params["error_description"]?.prefix(200) ?? "")")
            request.flash[flashKey] = "Single sign-on was refused by \(settings.name)\(error == "access_denied" ? "" : " (\(error.prefix(64)))"). You were not signed in."
            try request.redirect(to: signInPath)
        }
        let code = request.params["code"] ?? ""
        let redirectUri = request.absoluteUrl(callbackPath)
        let signedIn = try await answering(request) { () async throws(OpenIdConnectError) -> OpenIdConnectUserMapping.Result in
            guard !code.isEmpty, code.utf8.count <= 4096 else { throw .rejected("the callback has no code") }
            let metadata = try await provider.discover()
            let token = try await provider.exchange(
                code: code, verifier: flow.verifier, redirectUri: redirectUri, clientId: settings.clientId, clientSecret: settings.clientSecret,
                metadata: metadata)
            let claims = try await verifier.verify(token, nonce: flow.nonce, provider: provider, metadata: metadata, now: now)
            try checkDomain(claims)
            guard let users = authentication?.users else { throw .notAllowed("this app has no user store (app.use(Authentication(...)) is missing).") }
            let context = OpenIdConnectUserMapping.Context(
                claims: claims, users: users, links: settings.links, rolesClaim: settings.rolesClaim, hasher: authentication?.hasher ?? .shared,
                linkBy: settings.linkBy, now: now)
            do {
                return try await settings.users.map(context)
            } catch let error as OpenIdConnectError {
                throw error
            } catch let error as HttpError {
                throw .providerUnavailable("the user store: \(error.message)")
            } catch {
                throw .providerUnavailable("the user store or the identity links: \(error)")
            }
        }
        try await finish(request, signedIn, authentication, flashKey: flashKey)
    }

    /// Signs the user in as a password does, greets them, and sends them back.
    private func finish(_ request: Request, _ signedIn: OpenIdConnectUserMapping.Result, _ authentication: Authentication?, flashKey: String) async throws -> Never {
        try await request.signIn(signedIn.user, credentialStamp: signedIn.credentialStamp, via: OpenIdConnect.source)
        request.logger.info("Signed in by single sign-on: \(signedIn.user.username)")
        if let authentication {
            request.flash[flashKey] = authentication.welcomeMessage(signedIn.user)
        } else {
            request.flash[flashKey] = "Welcome back \(signedIn.user.name)."
        }
        let target = request.takeOriginalPath() ?? authentication?.homePath ?? "/"
        try request.redirect(to: target, status: .seeOther)
    }

    /// With ``OpenIdConnect/allowedDomains``: a verified email in one of them.
    private func checkDomain(_ claims: IdTokenClaims) throws(OpenIdConnectError) {
        guard !settings.allowedDomains.isEmpty else { return }
        guard let email = claims.email, let at = email.lastIndex(of: "@") else {
            throw .notAllowed("the provider sent no email address, and only addresses in \(settings.allowedDomains.joined(separator: ", ")) may sign in here.")
        }
        let domain = email[email.index(after: at)...].lowercased()
        guard settings.allowedDomains.contains(where: { $0.lowercased() == domain }) else {
            throw .notAllowed("the address \(email) is not in a domain allowed here (\(settings.allowedDomains.joined(separator: ", "))).")
        }
        guard claims.emailVerified else {
            throw .notAllowed("the provider has not verified the address \(email).")
        }
    }

    /// Runs `step`, turning its ``OpenIdConnectError`` into the page the browser gets and the
    /// reason into the log.
    private func answering<T>(_ request: Request, _ step: () async throws(OpenIdConnectError) -> T) async throws -> T {
        do {
            return try await step()
        } catch {
            request.logger.warning("Single sign-on failed: \(error.reason)")
            throw error.httpError
        }
    }

    /// With ``OpenIdConnect/logout``: a sign-out of a session single sign-on signed in goes on
    /// to the provider's `end_session_endpoint`, which sends the browser back home.
    func installLogout(in app: App) {
        let signOut = settings.signOutPath + "/?"
        app.before(signOut) { request in
            if request.method == .POST, request.signInSource == OpenIdConnect.source {
                request.storage[SignedInBySingleSignOn.self] = true
            }
        }
        let provider = provider
        let clientId = settings.clientId
        app.after(signOut) { request in
            guard request.storage[SignedInBySingleSignOn.self] == true, request.response.status == .seeOther,
                let metadata = try? await provider.discover(), let endpoint = metadata.endSessionEndpoint
            else { return }
            let query = [("client_id", clientId), ("post_logout_redirect_uri", request.absoluteUrl("/"))]
                .map { FormEncoding.encode($0.0) + "=" + FormEncoding.encode($0.1) }.joined(separator: "&")
            request.response.headers.replaceOrAdd(name: "Location", value: endpoint + (endpoint.contains("?") ? "&" : "?") + query)
        }
    }
}

/// Noted before a sign-out: the session was signed in by single sign-on.
private enum SignedInBySingleSignOn: RequestStorageKey {
    typealias Value = Bool
}
#endif
