import MicroAuth
import MicroCore

extension Request {
    /// The passkeys' service, when the app's account pages have one.
    var passkeys: PasskeyService? { services.service(PasskeyService.self) }

    /// The session's pending passkey challenges (none when it holds none, or a spoiled value).
    var pendingPasskeyChallenges: PendingPasskeyChallenges {
        session.get(PendingPasskeyChallenges.key, as: PendingPasskeyChallenges.self) ?? PendingPasskeyChallenges()
    }

    /// Keeps `pending` as the session's pending passkey challenges.
    func keepPasskeyChallenges(_ pending: PendingPasskeyChallenges) throws {
        if pending.challenges.isEmpty {
            session.remove(PendingPasskeyChallenges.key)
        } else {
            try session.set(PendingPasskeyChallenges.key, pending)
        }
    }

    /// A fresh challenge for `purpose`, kept among the session's pending ones.
    func newPasskeyChallenge(for purpose: PasskeyChallenge.Purpose) throws -> PasskeyChallenge {
        let challenge = PasskeyChallenge(purpose: purpose, now: session.now)
        var pending = pendingPasskeyChallenges
        pending.add(challenge)
        try keepPasskeyChallenges(pending)
        return challenge
    }

    /// Runs `check` as one attempt of the sign-in throttle: the client's address (and
    /// `username`, when the attempt names one) admitted first, a 429 over the limit; the
    /// outcome `check` leaves counted after, a refusal as a failed sign-in. `check` starts at
    /// `.failure`, and sets `.unchecked` where it could check nothing (a store that failed).
    func passkeyAttempt<Value>(
        username: String?, _ check: (inout SignInThrottle.Outcome) async throws -> Value
    ) async throws -> Value {
        guard let service = services.service(AuthenticationService.self) else {
            throw ConfigurationError("Passkeys need app.use(Authentication(users: ...)).")
        }
        let throttle = service.throttle
        let now = session.now
        let key = username.map { throttle.key(username: Username.key($0)) }
        let address = clientAddress.map(throttle.key(address:))
        try await service.adoptSharedFailures(username: key, address: address, now: now, logger: logger)
        do {
            try await admit(username: key, address: address, service)
        } catch let error as HttpError where error.status == .tooManyRequests {
            await announce { await $0.lockedOut(self, name: username.map(Username.key), authentication: service.settings) }
            throw error
        }
        var outcome = SignInThrottle.Outcome.failure
        do {
            let value = try await check(&outcome)
            await service.finish(username: key, address: address, outcome: .success, now: now, logger: logger)
            return value
        } catch {
            await service.finish(username: key, address: address, outcome: outcome, now: now, logger: logger)
            if outcome == .failure { await announce { await $0.signInFailed(self, username: username) } }
            throw error
        }
    }

    /// Signs in `stored` after a passkey (`detail` for the event): a sign-in like a password's,
    /// noted as two factors where the passkey verified the person. Where the browser goes
    /// next: the remembered page, else home (with the welcome).
    func signInByPasskey(_ stored: StoredUser, verified: Bool, detail: String) async throws -> String {
        try await signIn(checked: stored, detail: detail)
        if verified { session[TwoFactorRequirement.passkeyKey] = Username.key(stored.user.username) }
        guard let authentication = authenticationSettings else { return url("/") }
        flash[authentication.flashKey] = authentication.welcomeMessage(stored.user)
        return url(takeOriginalPath() ?? authentication.homePath)
    }

    /// `location` as the JSON a page's script reads (its `fetch` would follow a redirect
    /// itself): `{"location": ...}`.
    func passkeyLocation(_ location: String) throws -> Response {
        try JsonBody(["location": location]).makeResponse(for: self)
    }
}
