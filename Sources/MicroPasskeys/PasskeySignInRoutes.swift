import MicroAccounts
import MicroAuth
import MicroCore
import MicroTwoFactor

/// Signing in with a passkey, no name typed: the options for the browser's dialog, and the
/// answer's check. A sign-in like a password's (a new session identity, the credential stamp,
/// the return path, the flash, the event), throttled as one: every refusal is a failed
/// sign-in of the client's address.
struct PasskeySignInRoutes {
    let service: PasskeyService
    private var settings: PasskeySettings { service.settings }

    func install(in app: App) {
        let path = settings.signInPath
        app.post(path + "/options/?") { request in try options(request) }
        app.post(path + "/?") { request in try await signIn(request) }
    }

    /// The store and relying party; a 404 where passkeys cannot sign in.
    private func place(_ request: Request) throws -> (PasskeyStore, PasskeyRelyingParty) {
        guard let store = service.store(offeredFor: request), let relyingParty = service.relyingParty(for: request) else {
            throw HttpError(.notFound, settings.noRelyingPartyMessage)
        }
        return (store, relyingParty)
    }

    private func options(_ request: Request) throws -> Response {
        let (_, relyingParty) = try place(request)
        let challenge = try request.newPasskeyChallenge(for: .signIn)
        return request.passkeyOptions(PasskeyOptions.request(challenge: challenge, relyingParty: relyingParty))
    }

    private func signIn(_ request: Request) async throws -> Response {
        let (store, relyingParty) = try place(request)
        let (stored, passkey, use) = try await request.withPasskeyChallenges { pending in
            try await request.signInAttempt(username: nil) { attempt in
                try await check(request, store: store, relyingParty: relyingParty, pending: &pending, outcome: &attempt.outcome)
            }
        }
        await request.recordAccountEvent(ActivityEvent.Kind.passkeyUsed, of: stored.user.username, detail: passkey.name)
        // Without the person verified (a PIN, a fingerprint), a passkey is one factor: a user
        // with a second factor gives it next, as after a password.
        if !use.userVerified, let step = request.signInStep, try await step.isDue(for: stored.user.username) {
            return try request.passkeyLocation(request.url(try request.beginSecondStepAfterPasskey(stored)))
        }
        request.endSecondStep()
        return try request.passkeyLocation(try await request.signInByPasskey(stored, verified: use.userVerified, detail: "passkey"))
    }

    /// The user the answer signs in, its passkey and what the check found; the challenge it
    /// names is taken from `pending`. `outcome` becomes `.unchecked` where nothing could be
    /// checked (a store that failed).
    private func check(
        _ request: Request, store: PasskeyStore, relyingParty: PasskeyRelyingParty, pending: inout PendingPasskeyChallenges,
        outcome: inout SignInThrottle.Outcome
    ) async throws -> (StoredUser, Passkey, PasskeyUse) {
        let check = PasskeyAnswerCheck(store: store, relyingParty: relyingParty, settings: settings, purpose: .signIn)
        let answer = try PasskeyAnswerCheck.answer(request)
        let passkey = try await check.passkey(of: answer, request, pending: &pending, outcome: &outcome)
        // Its user as the store holds them now: removed or disabled, the passkey signs no one in.
        let stored: StoredUser?
        do {
            guard let authentication = request.authenticationSettings else { throw check.refused }
            stored = try await authentication.users.find(username: passkey.username, using: authentication.hasher)
        } catch let error as HttpError {
            throw error
        } catch {
            throw check.unavailable(request, error, outcome: &outcome)
        }
        guard let stored, !stored.isDisabled else { throw check.refuse(answer, request, pending: &pending) }
        return (stored, passkey, try await check.verify(answer, with: passkey, user: nil, request, pending: &pending, outcome: &outcome))
    }
}
