import MicroAccounts
import MicroAuth
import MicroCore

/// Confirming the passkeys page's changes with one of the user's own passkeys instead of the
/// current password (and code): "Confirm with a passkey". The passkey must verify the person
/// (the device's lock), which makes it two factors, as the password and a code are; one that
/// only saw someone present is refused. The confirmation then holds as a right password
/// does (``AdminProof``, for ``Accounts/adminProofLifetime``), and is checked as a sign-in is:
/// the user's throttle and the client's, a refusal counted as their failed sign-in.
struct PasskeyConfirmationRoutes {
    let service: PasskeyService
    let accounts: Accounts
    private var settings: PasskeySettings { service.settings }

    func install(in app: App) {
        let path = service.confirmPath
        app.post(path + "/options/?") { request in try await options(request) }
        app.post(path + "/?") { request in try await answer(request) }
    }

    /// The signed-in user, the store and the relying party; a 404 where passkeys cannot
    /// answer, a 403 for an API token (a token proves no one is at the keyboard).
    private func place(_ request: Request) throws -> (User, PasskeyStore, PasskeyRelyingParty) {
        let user = try request.authenticate()
        guard let store = service.store(offeredFor: request), let relyingParty = service.relyingParty(for: request) else {
            throw HttpError(.notFound, settings.noRelyingPartyMessage)
        }
        guard !request.isSignedInByApiToken else { throw HttpError(.forbidden, accounts.apiTokens.tokenByTokenMessage) }
        return (user, store, relyingParty)
    }

    /// The options: the user's own passkeys only, and the person verified.
    private func options(_ request: Request) async throws -> Response {
        let (user, store, relyingParty) = try place(request)
        let allowed = try await store.passkeys(of: Username.key(user.username)).map(\.credentialId)
        guard !allowed.isEmpty else { throw HttpError(.unprocessableEntity, settings.noPasskeyToConfirmMessage) }
        let challenge = try request.newPasskeyChallenge(for: .confirmation)
        return request.passkeyOptions(
            PasskeyOptions.request(challenge: challenge, relyingParty: relyingParty, allowed: allowed, userVerification: true))
    }

    private func answer(_ request: Request) async throws -> Response {
        let (user, store, relyingParty) = try place(request)
        try await confirm(request, user, store: store, relyingParty: relyingParty)
        request.flash["notice"] = settings.confirmedMessage
        return try request.passkeyLocation(request.url(service.pagePath))
    }

    /// Checks the answer `request` carries to these options' dialog: one of `user`'s own
    /// passkeys, which verified the person, checked as a sign-in is. Then notes the proof and
    /// records the passkey's use; the passkeys page's add form sends the same answer in place
    /// of the password.
    func confirm(_ request: Request, _ user: User, store: PasskeyStore, relyingParty: PasskeyRelyingParty) async throws {
        let passkey = try await request.withPasskeyChallenges { pending in
            try await request.signInAttempt(username: user.username) { attempt in
                attempt.failedUser = user.username
                var check = PasskeyAnswerCheck(store: store, relyingParty: relyingParty, settings: settings, purpose: .confirmation)
                check.requiresVerification = true
                return try await check.ownPasskey(of: user.username, request, pending: &pending, outcome: &attempt.outcome)
            }
        }
        AdminProof.note(request, lifetime: accounts.adminProofLifetime.components.seconds)
        await request.recordAccountEvent(ActivityEvent.Kind.passkeyUsed, of: user.username, detail: passkey.name)
    }
}
