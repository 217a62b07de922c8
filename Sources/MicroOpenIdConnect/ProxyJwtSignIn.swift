#if OpenIdConnect
import Foundation
import MicroAuth
import MicroCore

/// Signs in the person a sign-in proxy vouches for in a JWT it signs: Cloudflare Access
/// (`Cf-Access-Jwt-Assertion`), Google's Identity-Aware Proxy (`X-Goog-Iap-Jwt-Assertion`),
/// Pomerium (`X-Pomerium-Jwt-Assertion`), or an ID token Apache's mod_auth_openidc passes on
/// (`OIDC_id_token`): Grafana's `[auth.jwt]`.
///
/// ```swift
/// var door = ProxyJwtSignIn(
///     header: "Cf-Access-Jwt-Assertion", jwksUrl: "https://team.cloudflareaccess.com/cdn-cgi/access/certs",
///     issuer: "https://team.cloudflareaccess.com", audience: "AUD-TAG")
/// app.use(door)
/// ```
///
/// Safer than a plain header (``/MicroAuth/ProxySignIn``): the token is checked as an ID token
/// is (the signature by the key named by `kid`, RS256 or ES256, `iss`,
/// `aud`, `exp`, `iat`), with the key-set cache of single sign-on (an unknown `kid` refetches
/// the set at most once a minute), so it proves itself from any address. The rest is
/// ``/MicroAuth/ProxySignIn``'s: the identity is the request's, once per browser session.
/// An invalid token is a `401`; the key set unreachable, a `503` with `Retry-After`.
public struct ProxyJwtSignIn: AppPlugin, Sendable {
    /// The header carrying the JWT.
    public var header: String
    /// The proxy's key set.
    public var jwksUrl: String
    /// The `iss` its tokens carry.
    public var issuer: String
    /// The `aud` its tokens must hold (Cloudflare's application audience tag, IAP's
    /// `/projects/NUMBER/global/backendServices/ID`, the client id for an ID token).
    public var audience: String
    /// The claim naming the user; nil: the local part of the `email` claim (refused when
    /// `email_verified` is false), in one of ``allowedDomains``.
    public var userClaim: String?
    /// The domains whose addresses name users by their local part (`corp.example`): needed
    /// without ``userClaim``, since `ann@corp.example` and `ann@gmail.com` have one local part,
    /// and a proxy may admit more than the company's accounts.
    public var allowedDomains: [String] = []
    /// The claim holding the groups of a user from outside the store (``users`` `.any`).
    public var groupsClaim: String?
    /// Whom the proxy may name.
    public var users = ProxyUsers.existing
    /// Where sign-out leads (the proxy's own sign-out).
    public var signOutUrl: String?
    /// The leeway on `exp` and `iat`.
    public var clockSkew: Duration = .seconds(60)
    /// The shortest time between two key-set fetches for an unknown `kid`.
    public var keyRefetchInterval: Duration = .seconds(60)
    /// The longest one fetch of the key set may take.
    public var timeout: Duration = .seconds(5)

    /// The longest token read, in bytes.
    public static let maximumTokenBytes = 16 * 1024

    /// A proxy sending its JWT in `header`, signed by a key of `jwksUrl`.
    public init(header: String, jwksUrl: String, issuer: String, audience: String) {
        self.header = header
        self.jwksUrl = jwksUrl
        self.issuer = issuer
        self.audience = audience
    }

    /// What is wrong with the settings; nil when nothing.
    public var problem: String? {
        if let problem = ProviderUrl.problem(jwksUrl) { return "ProxyJwtSignIn.jwksUrl \(problem)." }
        if issuer.isEmpty { return "ProxyJwtSignIn.issuer is empty." }
        if audience.isEmpty { return "ProxyJwtSignIn.audience is empty." }
        if userClaim == nil, allowedDomains.isEmpty {
            return "ProxyJwtSignIn names users by the local part of their email, and allowedDomains is empty: list the company's domains, or set userClaim."
        }
        return nil
    }

    /// Adds ``/MicroAuth/ProxySignIn`` reading the JWT.
    public func install(in app: App) {
        if let problem { app.addProblem(problem) }
        let keys = OpenIdProvider(
            issuer: issuer, http: ProviderHttpClient(timeout: timeout, maximumBodySize: 1 << 20),
            keyRefetchInterval: keyRefetchInterval / .seconds(1), logger: app.logger, clock: app.settings.clock)
        let verifier = JwtVerifier(name: "the proxy's JWT", issuer: issuer, audience: audience, trustedAudiences: [], leeway: clockSkew / .seconds(1))
        let (header, jwksUrl, userClaim, groupsClaim) = (header, jwksUrl, userClaim, groupsClaim)
        let domains = Set(allowedDomains.map { $0.lowercased() })
        var door = ProxySignIn()
        door.userHeader = header
        door.users = users
        door.signOutUrl = signOutUrl
        door.identify = { request in
            let sent = request.headers[header]
            guard !sent.isEmpty else { return nil }
            guard sent.count == 1, let token = sent.first, token.utf8.count <= Self.maximumTokenBytes else {
                throw HttpError(.badRequest, "\(header) is sent more than once, or is longer than \(Self.maximumTokenBytes) bytes.")
            }
            let claims: ProxyJwtClaims
            do {
                claims = try await verifier.verify(token, as: ProxyJwtClaims.self, listed: JwtVerifier.supportedAlgorithms, now: request.settings.clock()) {
                    kid throws(OpenIdConnectError) in try await keys.key(named: kid, jwksUri: jwksUrl)
                }
            } catch let error as OpenIdConnectError {
                request.logger.warning("The sign-in proxy's JWT is refused: \(LogText.escape(error.logReason, limit: 2000))")
                if error.isProviderUnavailable {
                    throw HttpError(.serviceUnavailable, "Signing in is unavailable right now: the sign-in proxy's keys cannot be read.", headers: ["Retry-After": "30"])
                }
                throw HttpError(.unauthorized, "The sign-in proxy's token is not valid. Please sign in again.")
            }
            guard let username = Self.username(claims, claim: userClaim, domains: domains) else {
                throw HttpError(.forbidden, "The sign-in proxy's token names no user here (no \(userClaim ?? "verified email in an allowed domain")).")
            }
            return ProxyIdentity(username: username, roles: groupsClaim.flatMap { claims.strings[$0] })
        }
        app.use(door)
    }

    /// The user `claims` name: `claim`'s value, else the local part of a verified `email` in
    /// one of `domains`.
    static func username(_ claims: ProxyJwtClaims, claim: String?, domains: Set<String>) -> String? {
        if let claim { return claims.strings[claim]?.first }
        guard claims.emailVerified != false, let email = claims.email, ProviderUsername.isAddress(email), let at = email.lastIndex(of: "@"),
            domains.contains(email[email.index(after: at)...].lowercased())
        else { return nil }
        return String(email[..<at])
    }
}
#endif
