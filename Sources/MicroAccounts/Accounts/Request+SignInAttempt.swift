import MicroAuth
import MicroCore

extension Request {
    /// Runs `check` as one attempt of the sign-in throttle, as a password's is checked: the
    /// client's address (and `username`, when the attempt names one) admitted first, a 429 over
    /// the limit; after, the outcome `check` left counted, a failure also announced as a failed
    /// sign-in (of `username`). `check` starts at `.failure`; it sets `.success` for a right
    /// answer, and `.unchecked` where it could check nothing (a store that failed). A code of
    /// the second factor and a passkey's answer go through it.
    func signInAttempt<Value>(username: String?, _ check: (inout SignInThrottle.Outcome) async throws -> Value) async throws -> Value {
        guard let service = services.service(AuthenticationService.self) else {
            throw ConfigurationError("A sign-in needs app.use(Authentication(users: ...)).")
        }
        let throttle = service.throttle
        let now = Int64(settings.clock().timeIntervalSince1970)
        let name = username.map(Username.key)
        let key = name.map(throttle.key(username:))
        let address = clientAddress.map(throttle.key(address:))
        try await service.adoptSharedFailures(username: key, address: address, now: now, logger: logger)
        do {
            try await admit(username: key, address: address, service)
        } catch let error as HttpError where error.status == .tooManyRequests {
            await announce { await $0.lockedOut(self, name: name, authentication: service.settings) }
            throw error
        }
        var outcome = SignInThrottle.Outcome.failure
        let value: Value
        do {
            value = try await check(&outcome)
        } catch {
            await finish(outcome, username: username, key: key, address: address, service, now: now)
            throw error
        }
        await finish(outcome, username: username, key: key, address: address, service, now: now)
        return value
    }

    private func finish(
        _ outcome: SignInThrottle.Outcome, username: String?, key: SignInThrottle.Key?, address: SignInThrottle.Key?,
        _ service: AuthenticationService, now: Int64
    ) async {
        await service.finish(username: key, address: address, outcome: outcome, now: now, logger: logger)
        if outcome == .failure { await announce { await $0.signInFailed(self, username: username) } }
    }
}
