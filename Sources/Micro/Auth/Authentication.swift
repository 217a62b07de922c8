import Foundation

/// Sign-in and sign-out through forms, `authenticate()` for protected pages, and the
/// signed-in user in every template: the seed's design, with its flaws fixed.
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
/// settings with the seed's values; set `installsRoutes` to false to write your own routes with
/// ``Request/signIn(username:password:)`` and ``Request/signOut()``.
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
    /// Where bcrypt runs (off the event loops).
    public var hasher = PasswordHasher.shared

    /// The flow over `users`, with the seed's paths and texts.
    public init(users: any UserStore) {
        self.users = users
    }

    /// Adds the routes and the user in templates, and registers the user store with
    /// ``App/addReloadable(_:)`` when it can reload (``YamlUserStore``, ``SqliteUserStore``), so
    /// that SIGHUP picks up an edited users file.
    public func install(in app: App) {
        let service = AuthenticationService(self)
        app.register(service)
        if let reloadable = users as? any Reloadable { app.addReloadable(reloadable) }
        app.addTemplateValues { request in
            var values: [String: any Sendable] = ["signInPath": signInPath, "signOutPath": signOutPath]
            if let user = request.currentUser {
                values["currentUser"] = ["username": user.username, "name": user.name]
                values["signedIn"] = true
            }
            return values
        }
        guard installsRoutes else { return }
        let signIn = signInPath + "/?"
        let signOut = signOutPath + "/?"
        app.get(signIn) { request in
            try service.page(request, template: signInTemplate, title: "Sign In", fallback: BuiltInPages.signIn)
        }
        app.post(signIn) { request in
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
            try service.page(request, template: signOutTemplate, title: "Sign Out", fallback: BuiltInPages.signOut)
        }
        app.post(signOut) { request in
            request.signOut()
            request.flash[flashKey] = signedOutMessage
            try request.redirect(to: homePath)
        }
    }
}

/// The flow's state while the app runs: its settings, the throttle, the dummy hash.
final class AuthenticationService: Sendable {
    let settings: Authentication
    let throttle: SignInThrottle
    private let dummyHashes = DummyHashes()

    init(_ settings: Authentication) {
        self.settings = settings
        throttle = SignInThrottle(limits: settings.throttleLimits)
    }

    /// A hash to verify against when the username is unknown, of the cost the store's hashes
    /// have, so the answer takes as long as for a known user.
    func dummyHash() throws -> String {
        try dummyHashes.hash(cost: settings.users.typicalCost ?? Password.defaultCost)
    }

    /// The app's template for the page, or the built-in one.
    func page(_ request: Request, template: String, title: String, fallback: (Request) -> String) throws -> String {
        if request.services.views.hasTemplate(template) {
            return try request.render(template, ["title": title])
        }
        request.response.contentType = "text/html; charset=utf-8"
        return fallback(request)
    }
}

/// bcrypt hashes of a random password, one per cost, made when first needed.
private final class DummyHashes: Sendable {
    private let hashes = Locked<[Int: String]>([:])

    func hash(cost: Int) throws -> String {
        if let hash = hashes.withLock({ $0[cost] }) { return hash }
        let hash = try Password.hash(SessionData.randomId(), cost: cost)
        hashes.withLock { $0[cost] = hash }
        return hash
    }
}
