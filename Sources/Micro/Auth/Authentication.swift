import Crypto
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
    /// Where the throttle's failure counts are shared between instances (a database); nil keeps
    /// them in this process.
    public var throttleStore: (any SignInThrottleStore)?
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

/// The flow's state while the app runs: its settings, the throttle, the dummy hashes.
final class AuthenticationService: Sendable {
    let settings: Authentication
    let throttle: SignInThrottle
    private let dummyHashes = DummyHashes()
    /// The costs of the dummy hashes made so far: tests check the ones made at start-up.
    var preparedDummyCosts: [Int] { dummyHashes.costs }

    init(_ settings: Authentication) {
        self.settings = settings
        throttle = SignInThrottle(limits: settings.throttleLimits, digestKey: settings.throttleStore?.digestKey ?? SymmetricKey(size: .bits256))
        // Made now, at start-up, so that the first unknown name costs what the next ones do.
        let slowest = Self.slowestCost(settings)
        for cost in (settings.users.typicalCost.map { min($0, slowest) } ?? slowest)...slowest {
            _ = try? dummyHashes.hash(cost: cost)
        }
    }

    /// The cost of the hash an unknown name is checked against: the slowest among the users.
    private static func slowestCost(_ settings: Authentication) -> Int {
        settings.users.slowestCost ?? settings.users.typicalCost ?? settings.passwordCost
    }

    /// Whether `password` is the one of `stored`, checked with bcrypt on the hasher's threads.
    /// Every refusal costs the work of one check at the slowest cost among the store's users,
    /// so the time tells no name from another: an unknown name is checked against a dummy hash
    /// of that cost; a user of a cheaper cost c, refused, is also checked against dummy hashes
    /// of the costs c, c+1, ... up to the slowest, whose rounds (2^c + 2^c + 2^(c+1) + ...) add
    /// up to the slowest cost's. Real work rather than a wait: a busy machine slows both alike.
    func check(_ password: String, for stored: StoredUser?, hasher: PasswordHasher) async throws -> Bool {
        let slowest = Self.slowestCost(settings)
        let hash = try stored?.passwordHash ?? dummyHashes.hash(cost: slowest)
        let cost = Password.cost(of: hash).map { max(4, $0) } ?? slowest
        let padding = cost < slowest ? try (cost..<slowest).map { try dummyHashes.hash(cost: $0) } : []
        hasher.verifications.add(1, ordering: .relaxed)
        return try await hasher.run {
            let matches = Password.verify(password, against: hash) && stored != nil && !password.isEmpty
            if !matches {
                for dummy in padding { _ = Password.verify(password, against: dummy) }
            }
            return matches
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
            guard try await store.replacePasswordHash(of: stored.user.username, stored.passwordHash, with: new, using: settings.hasher)
            else { return stored }
            return StoredUser(user: stored.user, passwordHash: new)
        } catch {
            logger.warning("Could not re-hash the password of \(stored.user.username) at cost \(settings.passwordCost): \(error)")
            return stored
        }
    }

    /// Before an attempt: the shared counts of the name and the address, when a store shares
    /// them. A store that cannot answer makes sign-in unavailable (a 503).
    func adoptSharedFailures(username: SignInThrottle.Key?, address: SignInThrottle.Key?, now: Int64, logger: Logger) async throws {
        guard let store = settings.throttleStore else { return }
        do {
            let shared = try await store.failures(username: username, address: address, window: throttle.limits.window, now: now)
            throttle.adopt(shared, username: username, address: address, now: now)
        } catch let error as HttpError {
            // The store says why (and logs an outage once).
            throw error
        } catch {
            logger.error("Sign-in unavailable, the shared sign-in throttle cannot be read: \(error)")
            throw HttpError(.serviceUnavailable, "Sign-in is unavailable right now. Please try again in a minute.",
                headers: ["Retry-After": "60"])
        }
    }

    /// Ends an attempt: in memory, then in the shared store, whose counts (every instance's)
    /// this instance then holds. A store that fails keeps the count here only, and is logged.
    func finish(username: SignInThrottle.Key?, address: SignInThrottle.Key?, outcome: SignInThrottle.Outcome, now: Int64, logger: Logger) async {
        throttle.finish(username: username, address: address, outcome: outcome, now: now)
        guard let store = settings.throttleStore else { return }
        do {
            switch outcome {
            case .failure:
                let shared = try await store.recordFailure(username: username, address: address, window: throttle.limits.window, now: now)
                throttle.adopt(shared, username: username, address: address, now: now)
            case .success:
                if let username { try await store.clear(username: username) }
            case .unchecked:
                break
            }
        } catch {
            logger.warning("The shared sign-in throttle did not record a sign-in: \(error)")
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
final class DummyHashes: Sendable {
    private let hashes = Locked<[Int: String]>([:])

    /// The costs made so far.
    var costs: [Int] { hashes.withLock { $0.keys.sorted() } }

    func hash(cost: Int) throws -> String {
        if let hash = hashes.withLock({ $0[cost] }) { return hash }
        let hash = try Password.hash(SessionData.randomId().prefix(Password.maximumLength).description, cost: cost)
        hashes.withLock { $0[cost] = hash }
        return hash
    }
}
