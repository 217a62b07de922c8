import MicroCore

extension Request {
    /// Runs `check` as one attempt of the sign-in throttle, as a password's is checked: the
    /// client's address (and `username`, when the attempt names one) admitted first, a `429`
    /// with `Retry-After` over the limit; after, the outcome `check` left counted (on every
    /// instance that shares the throttle), and a failure told to the sign-in flow's listeners
    /// (the account pages record it, as the failure of ``SignInAttempt/failedUser``). A
    /// password, a second factor's code and a passkey's answer all go through it, and so can a
    /// way in of another package's. `username` is the name as the check looks it up: the
    /// throttle counts under its enforced form.
    ///
    /// ```swift
    /// let user = try await request.signInAttempt(username: name) { attempt -> StoredUser? in
    ///     guard let stored = try users.find(username: name) else { return nil }
    ///     attempt.failedUser = stored.user.username
    ///     guard try await badges.check(stored.user.username, code) else { return nil }
    ///     attempt.outcome = .success
    ///     return stored
    /// }
    /// ```
    public func signInAttempt<Value>(username: String?, _ check: (inout SignInAttempt) async throws -> Value) async throws -> Value {
        guard let service = services.service(AuthenticationService.self) else {
            throw ConfigurationError("A sign-in needs app.use(Authentication(users: ...)).")
        }
        let throttle = service.throttle
        let now = Int64(settings.clock().timeIntervalSince1970)
        let key = username.map { throttle.key(username: Username.key($0)) }
        let address = clientAddress.map(throttle.key(address:))
        try await service.adoptSharedFailures(username: key, address: address, now: now, logger: logger)
        do {
            try await admit(username: key, address: address, service)
        } catch let error as HttpError where error.status == .tooManyRequests {
            let name = username.flatMap { try? Username.enforce($0) }
            await announce { await $0.lockedOut(self, name: name, authentication: service.settings) }
            throw error
        }
        var attempt = SignInAttempt()
        let value: Value
        do {
            value = try await check(&attempt)
        } catch {
            await finish(attempt, key: key, address: address, service, now: now)
            throw error
        }
        await finish(attempt, key: key, address: address, service, now: now)
        return value
    }

    private func finish(
        _ attempt: SignInAttempt, key: SignInThrottle.Key?, address: SignInThrottle.Key?, _ service: AuthenticationService, now: Int64
    ) async {
        await service.finish(username: key, address: address, outcome: attempt.outcome, now: now, logger: logger)
        if attempt.outcome == .failure, attempt.announcesFailure {
            await announce { await $0.signInFailed(self, username: attempt.failedUser) }
        }
    }
}
