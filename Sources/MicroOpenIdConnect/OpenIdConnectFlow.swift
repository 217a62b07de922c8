#if OpenIdConnect
import Foundation
import Logging
import MicroAccounts
import MicroAuth
import MicroCore

/// The flow's routes while the app runs: start, callback, the button page, sign-out.
final class OpenIdConnectFlow: Sendable {
    let settings: OpenIdConnect
    let provider: OpenIdProvider
    let verifier: IdTokenVerifier
    /// The ID tokens kept for the provider's sign-out (with ``OpenIdConnect/logout``).
    let hints: IdTokenHints
    /// The required groups and the roles synced from the provider.
    let groups: ProviderGroups

    init(settings: OpenIdConnect, provider: OpenIdProvider, sessionLifetime: Int64 = 86_400) {
        self.settings = settings
        self.provider = provider
        hints = IdTokenHints(lifetime: sessionLifetime)
        groups = ProviderGroups(settings: settings)
        verifier = IdTokenVerifier(
            issuer: settings.issuer, clientId: settings.clientId, trustedAudiences: settings.trustedAudiences, leeway: settings.clockSkew / .seconds(1))
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
        try request.session.addPendingFlow(flow, limit: settings.maximumPendingFlows, lifetime: settings.flowLifetime.components.seconds)
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
            guard let flow = try? request.session.takePendingFlow(state: state, now: Int64(now.timeIntervalSince1970), lifetime: settings.flowLifetime.components.seconds)
            else { throw .invalidState("the callback's state is not one this session is waiting for (unknown, used or expired)") }
            return flow
        }
        if let error = request.params["error"] {
            // Both are the client's words: escaped, so that they write no line of their own.
            let description = request.params["error_description"] ?? ""
            request.logger.notice(
                "Single sign-on refused by the provider: error=\(LogText.escape(error, limit: 100)) error_description=\(LogText.escape(description, limit: 200))")
            let shown = String(error.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_") }.prefix(64))
            request.flash[flashKey] = "Single sign-on was refused by \(settings.name)\(error == "access_denied" || shown.isEmpty ? "" : " (\(shown))"). You were not signed in."
            try request.redirect(to: signInPath)
        }
        let code = request.params["code"] ?? ""
        let redirectUri = request.absoluteUrl(callbackPath)
        let (claims, token) = try await answering(request) { () async throws(OpenIdConnectError) -> (IdTokenClaims, String) in
            guard !code.isEmpty, code.utf8.count <= 4096 else { throw .rejected("the callback has no code") }
            let metadata = try await provider.discover()
            let token = try await provider.exchange(
                code: code, verifier: flow.verifier, redirectUri: redirectUri, clientId: settings.clientId, clientSecret: settings.clientSecret,
                metadata: metadata)
            let claims = try await verifier.verify(token, nonce: flow.nonce, provider: provider, metadata: metadata, now: now)
            try checkDomain(claims)
            return (claims, token)
        }
        try await groups.check(request, claims)
        let signedIn = try await answering(request) { () async throws(OpenIdConnectError) -> OpenIdConnectUserMapping.Result in
            guard let users = authentication?.users else { throw .notAllowed("this app has no user store (app.use(Authentication(...)) is missing).") }
            var context = OpenIdConnectUserMapping.Context(
                claims: claims, users: users, links: settings.links, rolesClaim: settings.rolesClaim, hasher: authentication?.hasher ?? .shared,
                linkBy: settings.linkBy, now: now)
            context.linkRule = settings.linkRule
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
        let syncedRoles = settings.roleSync ? groups.roles(claims) : nil
        let seconds = Int64(now.timeIntervalSince1970)
        if signedIn.needsProof {
            // Nobody signed in, nothing linked: the identity waits, sealed in this session, for
            // the person to prove the user its claim named.
            let pending = PendingLink(
                issuer: claims.issuer, subject: claims.subject, username: signedIn.user.username, claim: signedIn.linkedBy ?? "claim",
                stamp: signedIn.credentialStamp.text, started: seconds, hint: settings.logout ? hints.keep(token, now: seconds) : nil,
                providerSessionId: claims.sessionId, roles: syncedRoles)
            try request.session.set(PendingLink.sessionKey, pending)
            request.logger.notice(
                "Single sign-on: subject \(LogText.escape(claims.subject)) at \(LogText.escape(claims.issuer)) names \(signedIn.user.username) by \(pending.claim); waiting for the password")
            try request.redirect(to: settings.path + "/link", status: .seeOther)
        }
        try await finish(
            request, signedIn, identity: claims.identity, providerSessionId: claims.sessionId, syncedRoles: syncedRoles, idToken: token, provenBy: nil)
    }

    /// Gives a store user the provider's roles (with ``OpenIdConnect/roleSync``), signs the
    /// user in as a password does, notes the session for the provider's back-channel logout,
    /// records a link made, greets them, and sends them back.
    func finish(
        _ request: Request, _ given: OpenIdConnectUserMapping.Result, identity: ExternalIdentity, providerSessionId: String?,
        syncedRoles: [String]?, idToken: String?, provenBy: String?
    ) async throws -> Never {
        var signedIn = given
        if let syncedRoles { signedIn = try await groups.sync(request, given, roles: syncedRoles) }
        let authentication = request.authenticationSettings
        let flashKey = authentication?.flashKey ?? "notice"
        let username = signedIn.user.username
        let subject = "subject \(LogText.escape(identity.subject)) at \(LogText.escape(identity.issuer))"
        try await request.signIn(signedIn.user, credentialStamp: signedIn.credentialStamp, via: OpenIdConnect.source)
        try await noteForBackChannel(request, username: username, identity: identity, providerSessionId: providerSessionId)
        if let claim = signedIn.linkedBy {
            let detail = "issuer=\(LogText.escape(identity.issuer, limit: 256)) subject=\(LogText.escape(identity.subject, limit: 256)) claim=\(claim)"
            await request.recordAccountEvent(OpenIdConnect.linkedEvent, of: username, detail: detail + (provenBy.map { " proven by \($0)" } ?? ""))
        }
        if settings.logout, let idToken {
            hints.remember(idToken, in: request.session, now: Int64(request.settings.clock().timeIntervalSince1970))
        }
        request.logger.info("Signed in by single sign-on: \(username) (\(subject))")
        if let authentication {
            request.flash[flashKey] = authentication.welcomeMessage(signedIn.user)
        } else {
            request.flash[flashKey] = "Welcome back \(signedIn.user.name)."
        }
        let target = request.takeOriginalPath() ?? authentication?.homePath ?? "/"
        try request.redirect(to: target, status: .seeOther)
    }

    /// Notes the session just begun with the provider's names for it, so that its
    /// back-channel logout can end it. A session that could not be noted is one the provider
    /// could not end: it is signed out again, and the browser told to try later.
    private func noteForBackChannel(_ request: Request, username: String, identity: ExternalIdentity, providerSessionId: String?) async throws {
        let now = Int64(request.settings.clock().timeIntervalSince1970)
        // A name of the sign-in's own, carried in the session: the session's identity changes
        // (a password changed, "sign out everywhere else", each retiring the one before), this
        // does not, and a back-channel logout revokes it.
        let signInId = PendingFlow.random()
        request.session[ProviderSession.sessionKey] = signInId
        let session = ProviderSession(
            identity: identity, providerSessionId: providerSessionId.flatMap { $0.isEmpty || $0.utf8.count > 255 ? nil : $0 },
            username: username, sessionId: signInId, listedId: request.session.id, expiresAt: now + 1 + request.sessionSettings.lifetimeSeconds)
        do {
            try await settings.providerSessions.record(session, now: now)
        } catch {
            request.logger.error("Single sign-on cannot note the session for the provider's back-channel logout: \(error)")
            request.signOut()
            throw HttpError(.serviceUnavailable, "Single sign-on is unavailable right now. Please try again in a minute.", headers: ["Retry-After": "30"])
        }
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
            // A reason may quote what the provider sent (an address, a token endpoint's words).
            request.logger.warning("Single sign-on failed: \(LogText.escape(error.logReason, limit: 2000))")
            throw error.httpError
        }
    }

    /// With ``OpenIdConnect/logout``: a sign-out of a session single sign-on signed in goes on
    /// to the provider's `end_session_endpoint`, which sends the browser back home.
    func installLogout(in app: App) {
        let signOut = settings.signOutPath + "/?"
        let hints = hints
        app.before(signOut) { request in
            if request.method == .POST, request.signInSource == OpenIdConnect.source {
                // Read before the sign-out empties the session.
                request.storage[SignedInBySingleSignOn.self] = hints.token(of: request.session, now: Int64(request.settings.clock().timeIntervalSince1970)) ?? ""
            }
        }
        let provider = provider
        let clientId = settings.clientId
        app.after(signOut) { request in
            guard let token = request.storage[SignedInBySingleSignOn.self], request.response.status == .seeOther,
                let metadata = try? await provider.discover(), let endpoint = metadata.endSessionEndpoint
            else { return }
            // The hint names the session to end (Okta requires it; Keycloak otherwise asks the
            // person to confirm); the client id, for providers that read it beside the hint.
            var fields = [("client_id", clientId), ("post_logout_redirect_uri", request.absoluteUrl("/"))]
            if !token.isEmpty { fields.insert(("id_token_hint", token), at: 0) }
            let query = fields.map { FormEncoding.encode($0.0) + "=" + FormEncoding.encode($0.1) }.joined(separator: "&")
            request.response.headers.replaceOrAdd(name: "Location", value: endpoint + (endpoint.contains("?") ? "&" : "?") + query)
        }
    }
}

/// Noted before a sign-out: the session was signed in by single sign-on, with this ID token
/// ("" when it is not known here).
private enum SignedInBySingleSignOn: RequestStorageKey {
    typealias Value = String
}
#endif
