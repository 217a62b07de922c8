import MicroAccounts
import MicroAuth
import MicroCore

extension Request {
    /// The passkeys' service, when the app's account pages have one.
    var passkeys: PasskeyService? { service(PasskeyService.self) }

    /// The session's pending passkey challenges (none when it holds none, or a spoiled value).
    var pendingPasskeyChallenges: PendingPasskeyChallenges {
        session.get(PendingPasskeyChallenges.key, as: PendingPasskeyChallenges.self) ?? PendingPasskeyChallenges()
    }

    /// Runs `body` with the session's pending passkey challenges and keeps what it leaves of
    /// them, whether it returns or throws: a challenge an answer named is spent either way
    /// (one answer per dialog).
    func withPasskeyChallenges<Result>(_ body: (inout PendingPasskeyChallenges) async throws -> Result) async throws -> Result {
        var pending = pendingPasskeyChallenges
        let result: Result
        do {
            result = try await body(&pending)
        } catch {
            try keepPasskeyChallenges(pending)
            throw error
        }
        try keepPasskeyChallenges(pending)
        return result
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

    /// Signs in `stored` after a passkey (`detail` for the event): a sign-in like a password's,
    /// noted as two factors where the passkey verified the person. Where the browser goes
    /// next: the remembered page, else home (with the welcome).
    func signInByPasskey(_ stored: StoredUser, verified: Bool, detail: String) async throws -> String {
        try await signIn(checked: stored, detail: detail)
        if verified { noteTwoFactorSignIn(of: stored.user.username) }
        guard let authentication = authenticationSettings else { return url("/") }
        flash[authentication.flashKey] = authentication.welcomeMessage(stored.user)
        return url(takeOriginalPath() ?? authentication.homePath)
    }

    /// `options` (``PasskeyOptions``) for the browser's dialog: JSON that no cache keeps, as
    /// it carries a challenge good for one answer.
    func passkeyOptions(_ options: String) -> Response {
        var response = Response(contentType: "application/json", body: options)
        response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        return response
    }

    /// `location` as the JSON a page's script reads (its `fetch` would follow a redirect
    /// itself): `{"location": ...}`.
    func passkeyLocation(_ location: String) throws -> Response {
        try JsonBody(["location": location]).makeResponse(for: self)
    }
}
