#if OpenIdConnect
import Foundation
import MicroAccounts
import MicroAuth
import MicroCore

/// `POST PATH/backchannel-logout`: the provider ends sessions it began here, as OpenID
/// Connect Back-Channel Logout 1.0 says. The provider's server posts a signed logout token;
/// no browser, session or CSRF token is involved.
///
/// The token is checked as section 2.6 asks (``JwtVerifier``'s checks, with `iat` within the
/// clock skew, then `events`, `jti`, `sid` or `sub`, and no `nonce`), its `jti` is noted so
/// that it acts once, and the sessions it names end as a sign-out ends one: through the
/// app's revocations, on every instance that shares them.
struct BackChannelLogout: Sendable {
    let settings: OpenIdConnect
    let provider: OpenIdProvider
    let jwt: JwtVerifier

    /// The longest `jti`, `sid` and `sub` read.
    static let maximumNameBytes = 255

    init(settings: OpenIdConnect, provider: OpenIdProvider) {
        self.settings = settings
        self.provider = provider
        var jwt = JwtVerifier(
            name: "the logout token", issuer: settings.issuer, audience: settings.clientId, trustedAudiences: settings.trustedAudiences,
            leeway: settings.clockSkew / .seconds(1))
        // A logout token is sent at once and answered at once: one issued longer ago than the
        // clock skew is a replay, or the provider's clock is wrong.
        jwt.maximumAge = 0
        self.jwt = jwt
    }

    /// The answer to the provider: `200` when the token was accepted, `400` with
    /// `invalid_request` (and nothing ended) when not, `503` when the provider's keys or the
    /// store cannot be read.
    func answer(_ request: Request) async -> Response {
        let now = request.settings.clock()
        let seconds = Int64(now.timeIntervalSince1970)
        let claims: LogoutTokenClaims
        do {
            claims = try await throttled(request, now: now)
        } catch let error as OpenIdConnectError {
            request.logger.warning("Back-channel logout refused: \(LogText.escape(error.logReason, limit: 2000))")
            if error.isProviderUnavailable {
                return Self.json(.serviceUnavailable, error: "temporarily_unavailable", headers: ["Retry-After": "30"])
            }
            return Self.json(.badRequest, error: "invalid_request")
        } catch let error as HttpError where error.status == .tooManyRequests {
            request.logger.warning("Back-channel logout refused: too many bad logout tokens from this address")
            return Self.json(.tooManyRequests, error: "temporarily_unavailable", headers: ["Retry-After": error.headers.first(name: "Retry-After") ?? "60"])
        } catch {
            request.logger.error("Back-channel logout cannot check the token: \(error)")
            return Self.json(.serviceUnavailable, error: "temporarily_unavailable", headers: ["Retry-After": "30"])
        }
        let sessions: [ProviderSession]
        do {
            // Kept until no such token could be accepted any more: issued, plus the skew either way.
            let expiry = Int64(claims.issuedAt.rounded(.up)) + 2 * Int64(jwt.leeway) + 1
            guard try await settings.providerSessions.noteLogoutToken(claims.tokenId ?? "", issuer: claims.issuer, until: expiry, now: seconds) else {
                request.logger.warning("Back-channel logout refused: the logout token \(LogText.escape(claims.tokenId ?? "")) was used before")
                return Self.json(.badRequest, error: "invalid_request", description: "this logout token was used before")
            }
            do {
                sessions = try await settings.providerSessions.take(
                    issuer: claims.issuer, providerSessionId: claims.sessionId, subject: claims.subject, now: seconds)
            } catch {
                // Not acted on: the provider's retry must be heard.
                try? await settings.providerSessions.forgetLogoutToken(claims.tokenId ?? "", issuer: claims.issuer)
                throw error
            }
        } catch {
            request.logger.error("Back-channel logout cannot read the single sign-on sessions: \(error)")
            return Self.json(.serviceUnavailable, error: "temporarily_unavailable", headers: ["Retry-After": "30"])
        }
        let revocations = request.sessionSettings.revocations
        let named = [claims.sessionId.map { "sid=\(LogText.escape($0, limit: 255))" }, claims.subject.map { "sub=\(LogText.escape($0, limit: 255))" }]
            .compactMap { $0 }.joined(separator: " ")
        for session in sessions {
            revocations.revoke(id: session.sessionId, until: session.expiresAt, now: seconds)
            // Its identity as the sessions page lists it, unless a re-key has retired it since.
            if let listed = session.listedId { revocations.revoke(id: listed, until: session.expiresAt, now: seconds) }
            await request.recordAccountEvent(
                ActivityEvent.Kind.signedOut, of: session.username,
                detail: "back channel: the provider at \(LogText.escape(claims.issuer, limit: 256)) ended the session (\(named))")
        }
        request.logger.notice("Back-channel logout (\(named)): \(sessions.count) session(s) ended")
        var response = Response(status: .ok)
        response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        return response
    }

    /// ``check(_:now:)``, a refusal counted against the sender's address in the sign-in
    /// throttle, so that a burst of bad tokens costs the sender as failed sign-ins do (the
    /// throttle's `429`). A token that verifies is never refused by the throttle (a provider
    /// behind an address its users share must be heard); a bad one is no one's failed sign-in,
    /// and is not recorded as one.
    private func throttled(_ request: Request, now: Date) async throws -> LogoutTokenClaims {
        do {
            return try await check(request, now: now)
        } catch {
            guard request.authenticationSettings != nil, !error.isProviderUnavailable else { throw error }
            try await request.signInAttempt(username: nil) { attempt in
                attempt.announcesFailure = false
            }
            throw error
        }
    }

    /// The claims of the request's logout token once every check passed.
    private func check(_ request: Request, now: Date) async throws(OpenIdConnectError) -> LogoutTokenClaims {
        let sent = request.params.form.filter { $0.name == "logout_token" }
        guard sent.count == 1, let token = sent.first?.value, !token.isEmpty else {
            throw .rejected("the request has no logout_token form field, or more than one")
        }
        let metadata = try await provider.discover()
        let listed = Set(metadata.idTokenSigningAlgValuesSupported ?? ["RS256"])
        let claims = try await jwt.verify(token, as: LogoutTokenClaims.self, listed: listed, now: now) { kid throws(OpenIdConnectError) in
            try await provider.key(named: kid, metadata: metadata)
        }
        guard claims.events.contains(LogoutTokenClaims.event) else { throw .rejected("the logout token's events do not hold \(LogoutTokenClaims.event)") }
        guard !claims.hasNonce else { throw .rejected("the logout token carries a nonce (an ID token passed off as a logout token?)") }
        guard let tokenId = claims.tokenId, !tokenId.isEmpty, tokenId.utf8.count <= Self.maximumNameBytes else {
            throw .rejected("the logout token has no jti, or one longer than \(Self.maximumNameBytes) bytes")
        }
        guard claims.sessionId != nil || claims.subject != nil else { throw .rejected("the logout token names neither a sid nor a sub") }
        for name in [claims.sessionId, claims.subject].compactMap({ $0 }) where name.isEmpty || name.utf8.count > Self.maximumNameBytes {
            throw .rejected("the logout token's sid or sub is empty or longer than \(Self.maximumNameBytes) bytes")
        }
        return claims
    }

    /// A JSON error as the specification's section 2.8 has it, never cached.
    private static func json(_ status: HttpStatus, error: String, description: String? = nil, headers: [String: String] = [:]) -> Response {
        var fields = ["\"error\":\"\(error)\""]
        if let description { fields.append("\"error_description\":\"\(description)\"") }
        var response = Response(status: status, contentType: "application/json", body: "{\(fields.joined(separator: ","))}")
        response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        for (name, value) in headers { response.headers.replaceOrAdd(name: name, value: value) }
        return response
    }
}
#endif
