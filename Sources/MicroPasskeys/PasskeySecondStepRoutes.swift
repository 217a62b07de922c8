import MicroAccounts
import MicroAuth
import MicroCore
import MicroTwoFactor

/// The second step of a password sign-in answered by a passkey instead of a code ("Use a
/// passkey instead" on the code's page): one of the waiting user's own passkeys, checked as a
/// code is (their throttle and the client's; a refusal is their failed sign-in). Not after a
/// first step by passkey: the two factors must be two.
struct PasskeySecondStepRoutes {
    let service: PasskeyService
    private var settings: PasskeySettings { service.settings }

    func install(in app: App) {
        let path = settings.secondStepPath
        app.post(path + "/options/?") { request in try await options(request) }
        app.post(path + "/?") { request in try await answer(request) }
    }

    /// The waiting user, the store and the relying party; a 401 when no one waits (or the wait
    /// ended), a 403 after a first step by passkey, a 404 where passkeys cannot answer.
    private func place(_ request: Request) async throws -> (StoredUser, PasskeyStore, PasskeyRelyingParty) {
        guard let store = service.store(offeredFor: request), let relyingParty = service.relyingParty(for: request) else {
            throw HttpError(.notFound, settings.noRelyingPartyMessage)
        }
        guard let stored = try await request.userAtSecondStep() else {
            throw HttpError(.unauthorized, "Your sign-in has expired: start again with your password.")
        }
        // A passkey that began the sign-in without verifying the person is one factor: the
        // second must be something else, a code.
        guard !request.secondStepBeganWithPasskey else { throw HttpError(.forbidden, settings.codeAfterPasskeyMessage) }
        return (stored, store, relyingParty)
    }

    /// The options: the waiting user's passkeys only.
    private func options(_ request: Request) async throws -> Response {
        let (stored, store, relyingParty) = try await place(request)
        let allowed = try await store.passkeys(of: Username.key(stored.user.username)).map(\.credentialId)
        guard !allowed.isEmpty else { throw HttpError(.unprocessableEntity, settings.refusedMessage) }
        let challenge = try request.newPasskeyChallenge(for: .secondFactor)
        return request.passkeyOptions(PasskeyOptions.request(challenge: challenge, relyingParty: relyingParty, allowed: allowed))
    }

    private func answer(_ request: Request) async throws -> Response {
        let (stored, store, relyingParty) = try await place(request)
        let username = stored.user.username
        let passkey = try await request.withPasskeyChallenges { pending in
            try await request.signInAttempt(username: username) { attempt in
                attempt.failedUser = username
                let check = PasskeyAnswerCheck(store: store, relyingParty: relyingParty, settings: settings, purpose: .secondFactor)
                return try await check.ownPasskey(of: username, request, pending: &pending, outcome: &attempt.outcome)
            }
        }
        request.endSecondStep()
        await request.recordAccountEvent(ActivityEvent.Kind.passkeyUsed, of: username, detail: passkey.name)
        // The password and a passkey: two factors, whether or not the passkey verified the person.
        return try request.passkeyLocation(try await request.signInByPasskey(stored, verified: true, detail: "password+passkey"))
    }
}
