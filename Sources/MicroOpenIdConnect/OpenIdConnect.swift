#if OpenIdConnect
import Foundation
import Logging
import MicroAccounts
import MicroAuth
import MicroCore

/// Single sign-on with an OpenID Connect provider (Google, Entra, Okta, Keycloak...), beside
/// or instead of passwords: the authorization code flow with PKCE, `state` and `nonce`.
///
/// ```swift
/// app.use(Authentication(users: users))
/// app.use(OpenIdConnect(issuer: "https://login.example.com", clientId: "tools", clientSecret: secret))
/// ```
///
/// It adds the sign-in page's button (`Sign in with NAME`), `POST /auth/oidc` (sends the
/// browser to the provider; `GET` only shows the button), `GET /auth/oidc/callback`
/// (checks the answer and signs the user in as a password does: a new session identity, the
/// user and their stamp, back to the page first asked for) and
/// `POST /auth/oidc/backchannel-logout` (the provider ends the sessions it began). Discovery is fetched when first
/// needed, so the app starts while the provider is down. The issuer's origin joins the
/// Content-Security-Policy's `form-action` (browsers check it on the button's redirect to the
/// provider): an app that sets its own policy sets it before `app.use`.
public struct OpenIdConnect: AppPlugin, Sendable {
    /// The provider's issuer URL (discovery at `ISSUER/.well-known/openid-configuration`):
    /// `https`, or `http` on a loopback address only.
    public var issuer: String
    /// The client id the provider gave this app.
    public var clientId: String
    /// The client secret the provider gave this app.
    public var clientSecret: String
    /// The provider's name on the button: `Sign in with NAME`.
    public var name = "single sign-on"
    /// Who may sign in and as which user: ``OpenIdConnectUserMapping/existing`` (the store's
    /// users only) or ``OpenIdConnectUserMapping/any``.
    public var users = OpenIdConnectUserMapping.existing
    /// Which claim names the store's user on a person's first sign-in: `preferred_username`
    /// (else a verified email), or a verified email alone where people edit their username at
    /// the provider.
    public var linkBy = IdentityLinkClaim.username
    /// What makes the first link to a store user who has a password: ``IdentityLinkRule/proof``
    /// (their password, and code, asked in the same flow) or ``IdentityLinkRule/claim`` (the
    /// claim alone: only where the provider's administrators own it).
    public var linkRule = IdentityLinkRule.proof
    /// How long a provider's identity waits for the person's proof: from 10 seconds to an hour.
    public var proofLifetime: Duration = .seconds(300)
    /// When not empty, only verified email addresses in these domains sign in.
    public var allowedDomains: [String] = []
    /// The claim roles are read from: the roles of a user from outside the store, and with
    /// ``requiredGroups`` or ``roleSync`` of every user.
    public var rolesClaim = "groups"
    /// When not empty, a single sign-on whose roles claim holds none of these groups is
    /// refused (`403`, an audit event, no session), for the store's users as for others.
    public var requiredGroups: [String] = []
    /// Whether every single sign-on gives the store's user the roles of the roles claim
    /// (folded to lowercase). A change ends their other sessions, as a roles change on the
    /// users page does. A token without the claim is refused and changes nothing. Needs users
    /// the app can change (a table).
    public var roleSync = false
    /// Whether signing out also signs out at the provider (its `end_session_endpoint`).
    public var logout = false
    /// The sign-out path of the app's ``/MicroAuth/Authentication`` (for ``logout``).
    public var signOutPath = "/signout"
    /// Where identities are linked to the store's users.
    public var links: any IdentityLinkStore = MemoryIdentityLinkStore()
    /// Where the sessions single sign-on began are noted for the provider's back-channel
    /// logout: ``DatabaseProviderSessionStore`` where several instances serve the app.
    public var providerSessions: any ProviderSessionStore = MemoryProviderSessionStore()
    /// The path of the flow: `POST PATH` starts it, `GET PATH/callback` completes it.
    public var path = "/auth/oidc"
    /// The scopes asked for; `openid email profile` at least.
    public var scopes = ["openid", "email", "profile"]
    /// The longest one call to the provider may take.
    public var timeout: Duration = .seconds(5)
    /// The largest answer read from the provider.
    public var maximumResponseSize = 1 << 20
    /// The leeway on `exp` and `iat`.
    public var clockSkew: Duration = .seconds(60)
    /// How long a browser may take at the provider.
    public var flowLifetime: Duration = .seconds(600)
    /// How many sign-ins one session may have at the provider at once (tabs): the oldest goes.
    public var maximumPendingFlows = 3
    /// Audiences besides the client id an ID token may also name.
    public var trustedAudiences: Set<String> = []
    /// The shortest time between two key-set fetches for an unknown `kid`.
    public var keyRefetchInterval: Duration = .seconds(60)

    /// The source sessions signed in this way carry.
    public static let source = "oidc"
    /// The account event of a provider's identity linked to a user.
    public static let linkedEvent = "identity_linked"
    /// The account event of a link removed.
    public static let unlinkedEvent = "identity_unlinked"

    /// A provider at `issuer` that knows this app as `clientId` with `clientSecret`.
    public init(issuer: String, clientId: String, clientSecret: String) {
        self.issuer = issuer
        self.clientId = clientId
        self.clientSecret = clientSecret
    }

    /// What is wrong with the settings; nil when nothing.
    public var problem: String? {
        if let problem = ProviderUrl.problem(issuer) { return "OpenIdConnect.issuer \(problem)." }
        if clientId.isEmpty { return "OpenIdConnect.clientId is empty." }
        if clientSecret.isEmpty { return "OpenIdConnect.clientSecret is empty." }
        if !scopes.contains("openid") { return "OpenIdConnect.scopes must hold openid." }
        if maximumPendingFlows < 1 || flowLifetime < .seconds(1) { return "OpenIdConnect.maximumPendingFlows must be 1 or more, and flowLifetime at least a second." }
        if !(Duration.seconds(10)...Duration.seconds(3600)).contains(proofLifetime) {
            return "OpenIdConnect.proofLifetime is \(proofLifetime); it is from 10 to 3600 seconds."
        }
        return nil
    }

    /// Adds the button, the routes, and (with ``logout``) the provider's sign-out.
    public func install(in app: App) {
        let provider = OpenIdProvider(
            issuer: issuer, http: ProviderHttpClient(timeout: timeout, maximumBodySize: maximumResponseSize),
            keyRefetchInterval: keyRefetchInterval / .seconds(1), logger: app.logger, clock: app.settings.clock)
        let flow = OpenIdConnectFlow(
            settings: self, provider: provider, sessionLifetime: app.settings.sessions.absoluteLifetime.components.seconds)
        app.register(flow)
        let mapping = users
        app.addExternalSignIn(ExternalSignIn(source: Self.source, label: "Sign in with \(name)", action: path) { user, stamp in
            mapping.acceptsSession(user, stamp)
        })
        // Reported at start-up with the app's other mistakes.
        if let problem { app.addProblem(problem) }
        if let policy = app.settings.securityHeaders.contentSecurityPolicy {
            app.settings.securityHeaders.contentSecurityPolicy = ProviderFormAction.adding(issuer, to: policy)
        }
        app.get(path) { request in try flow.buttonPage(request) }
        app.post(path) { request -> String in try await flow.start(request) }
        app.get(path + "/callback") { request -> String in try await flow.complete(request) }
        // A session single sign-on began ends with the revocation of the identity it began
        // with, which a back-channel logout writes: checked from memory, as every revocation.
        app.addSessionCheck("a session single sign-on began is not ended by the provider's back-channel logout") { data, revocations in
            guard let value = data.values[ProviderSession.sessionKey] else { return true }
            // A JSON string of Base64url characters, as written at sign-in: nothing to unescape.
            guard value.utf8.count > 2, value.hasPrefix("\""), value.hasSuffix("\"") else { return false }
            return !revocations.isRevoked(id: String(value.dropFirst().dropLast()), created: data.createdMilliseconds)
        }
        // The provider's server posts here, with a signed token instead of a session.
        let backChannel = BackChannelLogout(settings: self, provider: provider)
        app.skipCsrf(path + "/backchannel-logout")
        app.post(path + "/backchannel-logout") { request in await backChannel.answer(request) }
        IdentityLinkProof(flow: flow).install(in: app)
        if let listing = links as? any IdentityLinkListing {
            IdentityLinkAdmin(settings: self, links: listing).install(in: app)
            OutsideUsersPage(settings: self, links: listing).install(in: app)
            app.onUserRenamed("identity links") { old, new in try await listing.rename(old, to: new) }
        }
        if logout { flow.installLogout(in: app) }
    }
}
#endif
