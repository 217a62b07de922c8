import Foundation
import Logging

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
    /// The bcrypt cost of new hashes: a user whose stored hash has another cost gets one of this
    /// cost at their next sign-in, where the store can write (``PasswordUpgradingUserStore``).
    public var passwordCost = Password.defaultCost

    /// The longest username read, in UTF-8 bytes: a longer one is refused before anything
    /// looks at it (no user can have it).
    public static let maximumUsernameLength = 256

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
        if let yaml = users as? YamlUserStore, let warning = yaml.costWarning(configuredCost: passwordCost) {
            app.logger.warning("\(warning)")
        }
        let revocations = app.settings.sessions.revocations
        let users = users
        // A session is over once its user was removed, their password changed, or their
        // sessions were revoked: checked from memory on each request.
        app.addSessionCheck { data in
            guard let user = Session.signedInUser(in: data) else { return true }
            guard let stamp = data.values[Session.credentialKey].flatMap(Session.plainString) else { return false }
            return users.isCurrent(CredentialStamp(text: stamp), username: user.username)
                && !revocations.isRevoked(username: user.username, created: data.created)
        }
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

/// The flow's state while the app runs: its settings, the throttle, the dummy hash, the time a
/// refusal takes.
final class AuthenticationService: Sendable {
    let settings: Authentication
    let throttle: SignInThrottle
    private let dummyHashes = DummyHashes()
    /// How long a check takes at each cost, measured as checks run.
    private let durations = Locked<[Int: Duration]>([:])

    init(_ settings: Authentication) {
        self.settings = settings
        throttle = SignInThrottle(limits: settings.throttleLimits)
        // Made now, at start-up, so that the first unknown name costs what the next ones do;
        // its making (a hash takes as long as a check) is the first measure of that cost.
        let cost = Self.dummyCost(settings)
        let started = ContinuousClock.now
        if (try? dummyHashes.hash(cost: cost)) != nil { record(cost: cost, ContinuousClock.now - started) }
    }

    /// The cost of the hash an unknown name is checked against: the slowest among the users.
    private static func dummyCost(_ settings: Authentication) -> Int {
        settings.users.slowestCost ?? settings.users.typicalCost ?? settings.passwordCost
    }

    /// A hash to verify against when the username is unknown, of the slowest cost among the
    /// store's, so the answer takes as long as for any known user.
    func dummyHash() throws -> String {
        try dummyHashes.hash(cost: Self.dummyCost(settings))
    }

    /// ``PasswordHasher/verify(_:against:)``, timing the check for its cost.
    func verify(_ password: String, against hash: String, hasher: PasswordHasher) async throws -> Bool {
        let (matches, took) = try await hasher.run {
            let started = ContinuousClock.now
            let matches = Password.verify(password, against: hash)
            return (matches, ContinuousClock.now - started)
        }
        hasher.verifications.add(1, ordering: .relaxed)
        if let cost = Password.cost(of: hash), Password.isValidHash(hash) { record(cost: cost, took) }
        return matches
    }

    /// After a refusal whose check began at `started`: waits until a check at the slowest cost
    /// would have ended, so that a user of a cheaper cost is refused no sooner than an unknown
    /// name (checked at the slowest cost).
    func padFailure(startedAt started: ContinuousClock.Instant) async throws {
        guard let slowest = durations.withLock({ $0[Self.dummyCost(settings)] }) else { return }
        let left = slowest - (ContinuousClock.now - started)
        if left > .milliseconds(1) { try await Task.sleep(for: left) }
    }

    /// A running mean of the checks at `cost`, weighted to the recent ones (the machine's load
    /// changes).
    private func record(cost: Int, _ took: Duration) {
        durations.withLock { durations in
            durations[cost] = durations[cost].map { $0 * 0.75 + took * 0.25 } ?? took
        }
    }

    /// After a successful sign-in: a hash of another cost than the configured one is replaced,
    /// where the store can write. Returns the user as stored now. A failure leaves the old hash
    /// and is logged: the sign-in stands.
    func upgradeHashIfNeeded(of stored: StoredUser, password: String, logger: Logger) async -> StoredUser {
        guard Password.cost(of: stored.passwordHash) != settings.passwordCost,
            let store = settings.users as? any PasswordUpgradingUserStore
        else { return stored }
        do {
            let cost = settings.passwordCost
            let new = try await settings.hasher.run { try Password.hash(password, cost: cost) }
            guard try store.replacePasswordHash(of: stored.user.username, stored.passwordHash, with: new) else { return stored }
            return StoredUser(user: stored.user, passwordHash: new)
        } catch {
            logger.warning("Could not re-hash the password of \(stored.user.username) at cost \(settings.passwordCost): \(error)")
            return stored
        }
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
        let hash = try Password.hash(SessionData.randomId().prefix(Password.maximumLength).description, cost: cost)
        hashes.withLock { $0[cost] = hash }
        return hash
    }
}
