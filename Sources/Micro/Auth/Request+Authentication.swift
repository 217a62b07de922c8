extension Request {
    static let originalPathKey = "_original_request"

    /// The flow's settings, or the defaults when the app does not use ``Authentication``.
    private var authentication: AuthenticationService? {
        services.extension(AuthenticationService.self)
    }

    /// The signed-in user, if any.
    public var currentUser: User? {
        session.get(Session.userKey, as: User.self, sharedIn: User.readFromSessions)
    }

    /// Whether someone is signed in.
    public var isSignedIn: Bool { currentUser != nil }

    /// Sinatra's `authenticate!`: with nobody signed in, remembers this page (path and query,
    /// for GET and HEAD) and redirects to the sign-in page; after sign-in the user lands back
    /// here. Does nothing when someone is signed in.
    ///
    /// ```swift
    /// app.before("/tools/*") { request in try request.authenticate() }
    /// ```
    public func authenticate() throws {
        guard !isSignedIn else { return }
        if method == .GET || method == .HEAD, let path = LocalPath.sanitize(fullPath) {
            session[Self.originalPathKey] = path
        }
        try redirect(to: authentication?.settings.signInPath ?? "/signin")
    }

    /// Checks `username` and `password` (bcrypt, off the event loop, throttled) and, when they
    /// match, signs the user in: the session gets a new identity (no fixation) and the user.
    /// Returns nil for a wrong username or password. Throws a 429 ``HttpError`` with
    /// `Retry-After` while the username or the client is throttled, and a 503 when the user
    /// store cannot be read.
    public func signIn(username: String, password: String) async throws -> User? {
        guard let service = authentication else {
            throw ConfigurationError("signIn needs app.use(Authentication(users: ...)).")
        }
        let name = username.trimmingSpaces().lowercased()
        let now = Int64(settings.clock().timeIntervalSince1970)
        let address = clientAddress
        if let wait = service.throttle.retryAfter(username: name, address: address, now: now) {
            let minutes = (wait + 59) / 60
            throw HttpError(.tooManyRequests, "Too many failed sign-ins. Try again in \(minutes) minute\(minutes == 1 ? "" : "s").",
                headers: ["Retry-After": String(wait)])
        }
        // Counted now, before the slow check, so that parallel attempts cannot all pass the
        // limit; a success takes it back.
        service.throttle.recordFailure(username: name, address: address, now: now)
        let hasher = service.settings.hasher
        let stored: StoredUser?
        do {
            // A username with control characters (a NUL, say) names nobody. The look-up runs on
            // the hasher's threads: a store on disk may wait for a lock.
            let plausible = !name.isEmpty && !name.utf8.contains { $0 < 0x20 || $0 == 0x7F }
            let users = service.settings.users
            stored = plausible ? try await hasher.run { try users.find(username: name) } : nil
        } catch {
            // Nothing was checked: the attempt does not count. The same answer whoever the
            // username names (the store failed before it could tell), and no detail for the
            // client: the log has the file and what is wrong with it.
            service.throttle.recordUnchecked(username: name, address: address)
            if let error = error as? HttpError { throw error }
            logger.error("Sign-in unavailable, the user store cannot be read: \(error)")
            throw HttpError(.serviceUnavailable, "Sign-in is unavailable right now. Please try again in a minute.",
                headers: ["Retry-After": "60"])
        }
        // An unknown user costs one bcrypt verification too: the time does not tell.
        let hash: String
        if let stored {
            hash = stored.passwordHash
        } else {
            hash = try await hasher.run { try service.dummyHash() }
        }
        let matches = try await hasher.verify(password, against: hash)
        guard let stored, matches, !password.isEmpty else { return nil }
        service.throttle.recordSuccess(username: name, address: address)
        let originalPath = session[Self.originalPathKey]
        session.regenerate()
        session[Self.originalPathKey] = originalPath
        try session.set(Session.userKey, stored.user)
        return stored.user
    }

    /// Signs the user out: the session is emptied and gets a new identity.
    public func signOut() {
        session.clear()
        session.regenerate()
    }

    /// The page `authenticate()` remembered, made safe, and forgotten.
    func takeOriginalPath() -> String? {
        defer { session.remove(Self.originalPathKey) }
        return session[Self.originalPathKey].flatMap(LocalPath.sanitize)
    }
}
