import MicroCore

extension Session {
    /// The key under which authentication keeps the signed-in user.
    static let userKey = "_user"
    /// The key of the signed-in user's ``CredentialStamp``.
    static let credentialKey = "_credential"
    /// The key of the stamp the user's hash had before the sign-in re-hashed it, if it did.
    static let priorCredentialKey = "_credential_prior"
    /// The key of the ``ExternalSignIn/source`` that signed the session in; absent for a password.
    static let sourceKey = "_signed_in_via"
    /// The key present while the session's user signed in with a password someone else set
    /// (``StoredUser/passwordChangeDue``) and has not chosen their own yet.
    static let passwordChangeDueKey = "_password_change_due"

    /// The user signed in to the session `data`, decoded once for all requests.
    static func signedInUser(in data: SessionData) -> User? {
        get(userKey, in: data, as: User.self, sharedIn: User.readFromSessions)
    }
}

extension Request {
    static let originalPathKey = "_original_request"

    /// The flow's settings, or the defaults when the app does not use ``Authentication``.
    private var authenticationService: AuthenticationService? {
        services.service(AuthenticationService.self)
    }

    /// The app's ``Authentication`` (its user store, paths and texts); nil when it uses none.
    public var authenticationSettings: Authentication? { authenticationService?.settings }

    /// The ``ExternalSignIn/source`` that signed this session in (`oidc`); nil for a password
    /// or nobody.
    public var signInSource: String? {
        guard isSignedIn, !isAuthenticatedByHeader else { return nil }
        return session[Session.sourceKey]
    }

    /// Signs `user` in as a way beside the password verified them (``ExternalSignIn``): the
    /// session gets a new identity (no fixation), restarts its lifetime, and holds the user,
    /// `credentialStamp` and `source`. The session then stands while the store's stamp for
    /// the user is `credentialStamp`, or while the way's ``ExternalSignIn/acceptsSession``
    /// says so, and until it is revoked or expires, as a password session does. With
    /// `Accounts`, the session is listed and the sign-in recorded with `detail` (`sso`).
    /// A user the store holds disabled is refused with a `403` (``refuseDisabledUser(_:)``).
    public func signIn(_ user: User, credentialStamp: CredentialStamp, via source: String, detail: String = "sso") async throws {
        try await signIn(user, credentialStamp: credentialStamp, via: source, detail: detail, announcing: true)
    }

    /// ``signIn(_:credentialStamp:via:detail:)``, telling the sign-in's listeners (the audit,
    /// the sessions' list) only when `announcing`.
    func signIn(_ user: User, credentialStamp: CredentialStamp, via source: String, detail: String, announcing: Bool) async throws {
        try await refuseDisabledUser(user.username)
        credentialsUser = nil
        let originalPath = session[Self.originalPathKey]
        session.regenerate()
        session.restart()
        session[Self.originalPathKey] = originalPath
        try session.set(Session.userKey, user)
        session[Session.credentialKey] = credentialStamp.text
        session[Session.priorCredentialKey] = nil
        session[Session.sourceKey] = source
        if announcing { await announce { await $0.signedIn(self, user: user, detail: detail) } }
    }

    /// The signed-in user, if any: the session's, or for a script the one its HTTP Basic
    /// credentials name (for that request only: no session is made).
    public var currentUser: User? {
        // The flag first: most requests have no header credentials, and the storage slot is
        // a look-up.
        if isAuthenticatedByHeader, let credentialsUser { return credentialsUser }
        return session.get(Session.userKey, as: User.self, sharedIn: User.readFromSessions)
    }

    /// Whether someone is signed in.
    public var isSignedIn: Bool { currentUser != nil }

    /// Sinatra's `authenticate!`: with nobody signed in, remembers this page (path and query,
    /// for GET and HEAD) and redirects to the sign-in page; after sign-in the user lands back
    /// here. Returns the signed-in user. In a group that authenticates
    /// (``RouteGroup/authenticate(file:line:)``) it returns the user at once.
    ///
    /// ```swift
    /// app.get("/loans") { request in
    ///     let user = try request.authenticate()
    ///     return try request.render("loans", ["mine": loans.borrowed(by: user.username)])
    /// }
    /// ```
    ///
    /// A request answered as a script's (``/MicroCore/Request/wantsJson``: it asks for JSON, or its route group
    /// answers JSON) gets a `401` with a JSON error instead, whose `WWW-Authenticate` and
    /// message name what the app accepts (``CredentialScheme``): HTTP Basic credentials,
    /// checked against the same users and throttled as the sign-in form is, unless
    /// ``Authentication/acceptsBasicCredentials`` is off; an API token where the account pages
    /// make them.
    @discardableResult
    public func authenticate() throws -> User {
        if let user = currentUser { return user }
        if wantsJson {
            throw authenticationService?.credentialSchemes.unauthorized ?? CredentialSchemes().unauthorized
        }
        if method == .GET || method == .HEAD, let path = LocalPath.sanitize(fullPath) {
            session[Self.originalPathKey] = path
        }
        try redirect(to: authenticationService?.settings.signInPath ?? "/signin")
    }

    /// ``authenticate()``, then a `403` page (or JSON error) unless the user has `role`;
    /// returns the user.
    ///
    /// ```swift
    /// app.get("/admin/users") { request in
    ///     try request.authorize(role: "admin")
    ///     return try request.render("admin/users", [...])
    /// }
    /// ```
    @discardableResult
    public func authorize(role: String) throws -> User {
        let user = try authenticate()
        guard user.has(role: role) else {
            throw HttpError(.forbidden, "You do not have access to this page: it needs the role '\(role)'.")
        }
        return user
    }

    /// ``authenticate()``, then a `403` page (or JSON error) unless the user has at least one of
    /// `roles`; returns the user. For a page that several roles may see, which one role per
    /// check would write as a hand-made `||`.
    ///
    /// ```swift
    /// app.post("/flags/:id") { request in
    ///     try request.authorize(anyOf: "editor", "prod-editor")
    ///     ...
    /// }
    /// ```
    @discardableResult
    public func authorize(anyOf roles: String...) throws -> User {
        try authorize(anyOf: roles)
    }

    /// ``authorize(anyOf:)-(String...)`` with the roles in an array. An empty array lets nobody in.
    @discardableResult
    public func authorize(anyOf roles: [String]) throws -> User {
        let user = try authenticate()
        guard roles.contains(where: user.has(role:)) else {
            let names = roles.map { "'\($0)'" }.joined(separator: ", ")
            throw HttpError(.forbidden, "You do not have access to this page: it needs one of the roles \(names).")
        }
        return user
    }

    /// Checks `username` and `password` (bcrypt, off the event loop, throttled) and, when they
    /// match, signs the user in: the session gets a new identity (no fixation) and the user.
    /// Returns nil for a wrong username or password. For a user with two-factor sign-in on
    /// (`Accounts.twoFactor`), nobody is signed in yet: the step waits in the session and
    /// this throws the redirect to the code's page. Throws a 429 ``/MicroCore/HttpError`` with
    /// `Retry-After` while the username or the client is throttled, and a 503 when the user
    /// store cannot be read.
    ///
    /// A username longer than ``Authentication/maximumUsernameLength`` bytes or a password
    /// longer than ``Password/maximumLength`` is refused before anything reads it (the attempt
    /// counts against the client's address). Every other refusal costs a check at the slowest
    /// cost among the store's users, so the time does not tell which names exist.
    public func signIn(username: String, password: String) async throws -> User? {
        guard let stored = try await services.signInMetrics.signIn(via: .form, { try await checkCredentials(username: username, password: password) })
        else { return nil }
        // A user with a further step (a second factor) is not signed in yet: on to the step.
        if let step = storage[SignInStepDue.self] { try step.begin(self, stored) }
        try await signIn(checked: stored, detail: "password")
        return stored.user
    }

    /// Signs in `stored`, whose credentials were checked: the session gets a new identity (no
    /// fixation), a new lifetime, and the user; the sign-in is recorded with `detail`.
    ///
    /// For a way in of a plugin's (a passkey) once its check passed, through
    /// ``signInAttempt(username:_:)``: `detail` names it in the user's activity. `stored` is
    /// the user as the store holds them now; a disabled one is refused with a `403`. It asks
    /// no further step: a way in that is one factor begins the app's step where it is due
    /// (``signInStep``, ``SignInStep/isDue(for:)``, ``SignInStep/begin(_:_:)``) instead.
    public func signIn(checked stored: StoredUser, detail: String) async throws {
        if stored.isDisabled { throw HttpError(.forbidden, "This account is disabled. Ask an administrator.") }
        let originalPath = session[Self.originalPathKey]
        session.regenerate()
        session.remove(Session.sourceKey)
        // The signed-in session begins now: its absolute lifetime counts from the sign-in.
        session.restart()
        session[Self.originalPathKey] = originalPath
        try session.set(Session.userKey, stored.user)
        session[Session.credentialKey] = CredentialStamp(stored).text
        session[Session.passwordChangeDueKey] = stored.passwordChangeDue ? "1" : nil
        // A sign-in that re-hashed also keeps the stamp before it (the same password): an
        // instance that has not heard of the new hash yet still holds that one.
        session[Session.priorCredentialKey] = storage[RehashedFrom.self]?.text
        await announce { await $0.signedIn(self, user: stored.user, detail: detail) }
    }

    /// Keeps this session signed in after its user's password changed here: `stored` is the
    /// user as the store now holds them, with the new hash. The session's stamp becomes theirs,
    /// so that the stamp check that ends every other session of the user keeps this one. Only
    /// after this request changed the password (and proved the current one): it vouches for
    /// the session under the new hash.
    public func keepSignedIn(as stored: StoredUser) {
        session[Session.credentialKey] = CredentialStamp(stored).text
        session[Session.priorCredentialKey] = nil
        session[Session.passwordChangeDueKey] = stored.passwordChangeDue ? "1" : nil
    }

    /// Whether the signed-in user of this session signed in with a password someone else set
    /// (an admin, `add-user`) and must choose their own before anything else: the account
    /// pages then lead every page of the session to the password's.
    public var isPasswordChangeDue: Bool {
        // Without a session cookie there is no session to look into (and none is loaded).
        guard cookie(sessionSettings.cookieName) != nil, session[Session.passwordChangeDueKey] != nil else { return false }
        return currentUser != nil
    }

    /// The user `username` and `password` name, checked as ``signIn(username:password:)``
    /// checks them (the same limits, throttle and timing), without touching the session.
    public func checkCredentials(username: String, password: String) async throws -> StoredUser? {
        guard let service = authenticationService else {
            throw ConfigurationError("signIn needs app.use(Authentication(users: ...)).")
        }
        guard username.utf8.count <= Authentication.maximumUsernameLength, password.utf8.count <= Password.maximumLength
        else {
            // Counted against the client's address, and no user's failure: nothing read it.
            return try await signInAttempt(username: nil) { attempt -> StoredUser? in
                attempt.announcesFailure = false
                return nil
            }
        }
        // A name outside the rule (a control, the Kelvin sign, `a:b`) names nobody: it fails as a
        // wrong password does, checked against a dummy hash and counted under the name as typed.
        let typed = username.trimmingSpaces()
        let name = try? Username.enforce(typed)
        return try await signInAttempt(username: typed) { attempt in
            let user = try await check(name: name, password: password, service, attempt: &attempt)
            try await noteStep(of: user, outcome: &attempt.outcome)
            return user
        }
    }

    /// After a right password: for a user who must pass a further step (``SignInStep``), the
    /// request notes it is due (``SignInStepDue``) and the check does not count as a completed
    /// sign-in, so that it clears none of the user's failures: only the step's answer does.
    private func noteStep(of user: StoredUser?, outcome: inout SignInThrottle.Outcome) async throws {
        guard let user, outcome == .success, let step = signInHooks.step else { return }
        outcome = .unchecked
        if try await step.isDue(for: user.user.username) {
            storage[SignInStepDue.self] = step
        } else {
            outcome = .success
        }
    }

    /// The check of an admitted attempt: its outcome for the throttle, and as whose failure
    /// (the user the name named, when one did, right password or not).
    private func check(name: String?, password: String, _ service: AuthenticationService, attempt: inout SignInAttempt) async throws -> StoredUser? {
        let hasher = service.settings.hasher
        let stored: StoredUser?
        do {
            // The look-up does not hold an event loop: a store on disk may wait for a lock, one
            // over the network on it.
            let users = service.settings.users
            if let name { stored = try await users.find(username: name, using: hasher) } else { stored = nil }
        } catch {
            // Nothing was checked: the attempt does not count. The same answer whoever the
            // username names (the store failed before it could tell), and no detail for the
            // client: the log has the file and what is wrong with it.
            attempt.outcome = .unchecked
            if let error = error as? HttpError { throw error }
            logger.error("Sign-in unavailable, the user store cannot be read: \(error)")
            throw HttpError(.serviceUnavailable, "Sign-in is unavailable right now. Please try again in a minute.",
                headers: ["Retry-After": "60"])
        }
        attempt.failedUser = stored?.user.username
        // An unknown user costs a check too: a refusal takes as long whoever the name is.
        let matches: Bool
        do {
            matches = try await service.check(password, for: stored, hasher: hasher)
        } catch {
            attempt.outcome = .unchecked  // the hasher was full: nothing was checked
            throw error
        }
        guard matches, let stored else { return nil }
        attempt.outcome = .success
        guard let rehashed = await service.upgradeHashIfNeeded(of: stored, password: password, logger: logger) else { return stored }
        storage[RehashedFrom.self] = CredentialStamp(stored)
        return rehashed
    }

    /// Waits while checks in flight hold the budget; throws the 429 when it is spent.
    func admit(username: SignInThrottle.Key?, address: SignInThrottle.Key?, _ service: AuthenticationService) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        var delayed = false
        while true {
            switch service.throttle.begin(username: username, address: address, now: clock) {
            case .proceed:
                return
            case .refuse(let wait):
                services.signInMetrics.throttle(.refused)
                let minutes = (wait + 59) / 60
                throw HttpError(.tooManyRequests, "Too many failed sign-ins. Try again in \(minutes) minute\(minutes == 1 ? "" : "s").",
                    headers: ["Retry-After": String(wait)])
            case .wait:
                if !delayed { services.signInMetrics.throttle(.delayed) }
                delayed = true
                guard ContinuousClock.now < deadline else {
                    throw HttpError(.serviceUnavailable, "Too many sign-ins at once. Please try again in a moment.",
                        headers: ["Retry-After": "1"])
                }
                // The checks it waits for take a bcrypt each: tens of milliseconds at least.
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    private var clock: Int64 { Int64(settings.clock().timeIntervalSince1970) }

    /// Signs the user out: the session is revoked (its cookie, replayed from anywhere, no
    /// longer opens), emptied, and gets a new identity.
    public func signOut() {
        credentialsUser = nil
        if isSignedIn { services.sessions.revoke(session) }
        session.clear()
        session.regenerate()
    }

    /// The page `authenticate()` remembered, made safe, and forgotten: where a sign-in lands.
    public func takeOriginalPath() -> String? {
        defer { session.remove(Self.originalPathKey) }
        return session[Self.originalPathKey].flatMap(LocalPath.sanitize)
    }
}

/// The stamp a sign-in's check found before it re-hashed the password.
enum RehashedFrom: RequestStorageKey {
    typealias Value = CredentialStamp
}
