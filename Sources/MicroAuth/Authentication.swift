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
    /// that SIGHUP picks up an edited users file. Its steps, in order, are below; `app.describe()`
    /// lists what each added, where.
    public func install(in app: App) {
        if let problem = settingsProblem {
            app.addProblem(problem)
            return
        }
        let service = AuthenticationService(self, credentialSchemes: app.credentialSchemes)
        registerServices(service, in: app)
        checkBasicCredentials(service, in: app)
        checkDemoPasswordsAtStartup(in: app)
        checkSessionsAgainstTheStore(service, in: app)
        addTemplateValues(in: app)
        if installsRoutes { addSignInAndSignOutRoutes(service, in: app) }
    }
}
