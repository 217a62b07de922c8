import Foundation
import MicroCore

/// Sign-in and sign-out through forms, `authenticate()` for protected pages, and the
/// signed-in user in every template: the design of a Sinatra sign-in app (`authenticate!`
/// remembers the page and redirects to /signin, whose form checks a bcrypt hash and goes back),
/// with its flaws fixed.
///
/// ```swift
/// app.use(Authentication(users: try YamlUserStore(file: "credentials.yml")))
/// app.get("/protected/?") { request in
///     try request.authenticate()            // remembers the path, redirects to /signin
///     return try request.render("protected", ["title": "Protected Page"])
/// }
/// ```
///
/// It adds `GET` and `POST /signin` (the form, and the check: bcrypt, throttled, the session
/// regenerated, back to the page first asked for), `GET /signout` (a page with the sign-out
/// button; it changes nothing) and `POST /signout`. The paths, the texts and the templates are
/// settings, by default the Sinatra app's (`/signin`, `/signout`, its flash messages), so that
/// its templates and links carry over; set `installsRoutes` to false to write your own routes with
/// ``MicroCore/Request/signIn(username:password:)`` and ``MicroCore/Request/signOut()``.
public struct Authentication: AppPlugin, Sendable {
    /// Where users are looked up.
    public var users: any UserStore
    /// The sign-in page; `authenticate()` redirects there.
    public var signInPath = "/signin"
    /// The sign-out page and action.
    public var signOutPath = "/signout"
    /// Where a sign-in with no page to go back to lands, and where sign-out lands.
    public var homePath = "/"
    /// The flash key of the messages (`{{flash.notice}}`).
    public var flashKey = "notice"
    /// The greeting after a sign-in.
    public var welcomeMessage: @Sendable (User) -> String = { "Welcome back \($0.name)." }
    /// The message after a failed sign-in.
    public var failureMessage = "You could not be signed in. Did you enter the correct username and password?"
    /// The message after sign-out.
    public var signedOutMessage = "You have been signed out."
    /// The template of the sign-in page (a built-in page when the app has none).
    public var signInTemplate = "signin"
    /// The template of the sign-out page (a built-in page when the app has none).
    public var signOutTemplate = "signout"
    /// Whether the sign-in and sign-out routes are added.
    public var installsRoutes = true
    /// The limits on failed sign-ins.
    public var throttleLimits = SignInThrottle.Limits()
    /// Where the throttle's failure counts are shared between instances (a database); nil keeps
    /// them in this process.
    public var throttleStore: (any SignInThrottleStore)?
    /// Where bcrypt runs (off the event loops).
    public var hasher = PasswordHasher.shared
    /// The bcrypt cost of new hashes (4 to 31): a user whose stored hash has another cost gets
    /// one of this cost at their next sign-in, where the store can write
    /// (``PasswordUpgradingUserStore``).
    public var passwordCost = Password.defaultCost

    /// Whether scripts may send HTTP Basic credentials (on requests answered as a script's:
    /// see ``/MicroCore/Request/wantsJson``). Checked as the sign-in form is, and throttled with it. Turn
    /// it off when the app's own sign-in asks for more than the password (a second factor):
    /// Basic would let a script in with the password alone.
    public var acceptsBasicCredentials = true
    /// Whether users may sign in with a password: false when single sign-on is the only way in
    /// (``ExternalSignIn``). Then the sign-in page shows only the other ways' buttons, `POST`
    /// to the sign-in path answers `403`, and HTTP Basic credentials are not read.
    public var acceptsPasswords = true
    /// The realm `WWW-Authenticate` names in a `401`.
    public var basicRealm = "Micro"
    /// How long a script's checked credentials are taken without a new bcrypt check (while the
    /// user's password and roles stay the same and their sessions are not revoked).
    public var basicCredentialLifetime: Duration = .seconds(60)

    /// Passwords that are published (the README's demo user's `secret123`): in production, a
    /// users file holding a user with one of them stops start-up, unless ``allowsDemoUsers``
    /// says it is a deliberate demo.
    public var demoPasswords = ["secret123"]
    /// Whether production may start with a user whose password is one of ``demoPasswords``,
    /// for a deliberate demo; nil, the default, reads `MICRO_ALLOW_DEMO_USERS` (`1` or `0`;
    /// unset is `0`) from ``/MicroCore/Settings/variables``.
    public var allowsDemoUsers: Bool?

    /// The longest username read, in UTF-8 bytes: a longer one is refused before anything
    /// looks at it (no user can have it).
    public static let maximumUsernameLength = 256

    /// The flow over `users`, at `/signin` and `/signout`, with a Sinatra sign-in app's messages.
    public init(users: any UserStore) {
        self.users = users
    }

    /// Adds the routes and the user in templates, and registers the user store with
    /// ``/MicroCore/App/addReloadable(_:)`` when it can reload (``YamlUserStore``, ``SqliteUserStore``), so
    /// that SIGHUP picks up an edited users file.
    public func install(in app: App) {
        guard Password.costs.contains(passwordCost) else {
            app.addProblem("Authentication.passwordCost is \(passwordCost); a bcrypt cost is from \(Password.costs.lowerBound) to \(Password.costs.upperBound).")
            return
        }
        // The throttle counts in whole seconds: a shorter window would count no failure at all.
        if throttleLimits.window < .seconds(1) {
            app.addProblem("Authentication.throttleLimits.window is \(throttleLimits.window); it must be at least a second.")
            return
        }
        let service = AuthenticationService(self, credentialSchemes: app.credentialSchemes)
        app.register(service)
        app.addBuiltInTemplates([AuthenticationTemplates.signInName: AuthenticationTemplates.signIn, AuthenticationTemplates.signOutName: AuthenticationTemplates.signOut])
        app.addMetrics { factory in SignInMetrics(factory: factory) }
        app.addSignedInSessionKey(Session.userKey)
        if let reloadable = users as? any Reloadable { app.addReloadable(reloadable) }
        let externalSignIns = app.externalSignIns
        if acceptsBasicCredentials && acceptsPasswords {
            app.addCredentialCheck { request in try await service.acceptBasicCredentials(request) }
            app.addCredentialScheme(CredentialScheme(
                name: "Basic", challenge: "Basic realm=\"\(basicRealm)\", charset=\"UTF-8\"",
                phrase: "the username and password with HTTP Basic authentication"))
        }
        let yaml = users as? YamlUserStore
        if let warning = yaml?.costWarning(configuredCost: passwordCost) { app.logger.warning("\(warning)") }
        let (demoPasswords, allowsDemoUsers) = (demoPasswords, allowsDemoUsers)
        app.addStartupCheck { settings in
            DemoPasswordCheck.result(yaml, passwords: demoPasswords, allowed: allowsDemoUsers, settings: settings)
        }
        // A session is over once its user was removed, their password changed, or their
        // sessions were revoked: checked from memory on each request, against the revocations
        // the app serves with.
        app.addSessionCheck { data, revocations in
            guard let user = Session.signedInUser(in: data) else { return true }
            guard let stamp = data.values[Session.credentialKey].flatMap(Session.plainString) else { return false }
            let credential = CredentialStamp(text: stamp)
            guard !revocations.isRevoked(username: user.username, created: data.createdMilliseconds) else { return false }
            if service.isCurrent(credential, username: user.username) { return true }
            if let prior = data.values[Session.priorCredentialKey].flatMap(Session.plainString),
                service.isCurrent(CredentialStamp(text: prior), username: user.username)
            { return true }
            // A session another way signed in (single sign-on) for a user the store does not
            // hold as it was: that way decides.
            guard let source = data.values[Session.sourceKey].flatMap(Session.plainString),
                let way = externalSignIns.way(source)
            else { return false }
            return way.acceptsSession(user, credential)
        }
        app.addTemplateValue("signInPath") { request in request.url(signInPath) }
        app.addTemplateValue("signOutPath") { request in request.url(signOutPath) }
        // `{{#currentUser.role.admin}}` shows what only admins see.
        app.addTemplateValue("currentUser") { request in
            request.currentUser.map { user -> [String: any Sendable] in
                [
                    "username": user.username, "name": user.name, "roles": user.roles,
                    "role": Dictionary(uniqueKeysWithValues: user.roles.map { ($0, true) }),
                ]
            }
        }
        app.addTemplateValue("signedIn") { request in request.currentUser != nil ? true : nil }
        // The sign-in page's other ways in: `{{#signInButtons}}<form action="{{action}}">...`.
        app.addTemplateValue("signInButtons") { request in
            externalSignIns.list.map { way -> [String: any Sendable] in ["label": way.label, "action": request.url(way.action)] }
        }
        let acceptsPasswords = acceptsPasswords
        app.addTemplateValue("passwordSignIn") { _ in acceptsPasswords ? true : nil }
        // Other plugins' blocks beside the password form (``SignInPageAddition``).
        let additions = app.signInPageAdditions
        app.addTemplateValue("signInAdditions") { request in
            additions.shown(for: request).blocks.map { block -> [String: any Sendable] in
                var value: [String: any Sendable] = ["html": block.html]
                if let script = block.script { value["script"] = script }
                return value
            }
        }
        app.addTemplateValue("usernameAutocomplete") { request in additions.shown(for: request).usernameAutocomplete }
        guard installsRoutes else { return }
        let signIn = signInPath + "/?"
        let signOut = signOutPath + "/?"
        app.get(signIn) { request in
            try service.page(request, template: signInTemplate, builtIn: AuthenticationTemplates.signInName, title: "Sign In") { request in
                BuiltInPages.signIn(request, passwords: acceptsPasswords, buttons: externalSignIns.list, additions: additions.shown(for: request))
            }
        }
        app.post(signIn) { request in
            guard acceptsPasswords else {
                throw HttpError(.forbidden, "Signing in with a password is turned off here: use the single sign-on button on the sign-in page.")
            }
            let username = request.params["username"] ?? ""
            let password = request.params["password"] ?? ""
            if let user = try await request.signIn(username: username, password: password) {
                request.flash[flashKey] = welcomeMessage(user)
                try request.redirect(to: request.takeOriginalPath() ?? homePath)
            }
            request.flash[flashKey] = failureMessage
            try request.redirect(to: signInPath)
        }
        app.get(signOut) { request in
            try service.page(
                request, template: signOutTemplate, builtIn: AuthenticationTemplates.signOutName, title: "Sign Out",
                values: ["homePath": request.url(homePath)], fallback: BuiltInPages.signOut)
        }
        app.post(signOut) { request in
            await request.announce { await $0.signingOut(request) }
            request.signOut()
            request.flash[flashKey] = signedOutMessage
            try request.redirect(to: homePath)
        }
    }
}
