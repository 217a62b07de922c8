import MicroAuth
import MicroCore

/// A passkey's answer to a sign-in's dialog checked against the store, as the sign-in page and
/// the second step check it. Malformed fields are a 400 with their reason, found before the
/// credential is looked up; every other refusal is the one message
/// (``PasskeySettings/refusedMessage``), whatever it was: an unknown passkey says no more than
/// a wrong password does. The challenge the answer names is taken from the session's `pending`
/// whatever the outcome.
struct PasskeyAnswerCheck {
    let store: PasskeyStore
    let relyingParty: PasskeyRelyingParty
    let settings: PasskeySettings
    let purpose: PasskeyChallenge.Purpose
    /// Whether the passkey must have verified the person (its device's lock), as a change
    /// confirmed by it must: a passkey that only saw someone present is one factor.
    var requiresVerification = false

    var refused: HttpError { HttpError(.unauthorized, settings.refusedMessage) }

    /// The fields a page's script posts; a 400 when one is missing.
    static func answer(_ request: Request) throws -> PasskeyAssertionResponse {
        guard let id = request.params["credential_id"], let clientData = request.params["client_data"],
            let authenticatorData = request.params["authenticator_data"], let signature = request.params["signature"]
        else { throw HttpError(.badRequest, "A passkey's answer needs the page's script: turn JavaScript on and try again.") }
        return PasskeyAssertionResponse(
            credentialId: id, clientData: clientData, authenticatorData: authenticatorData, signature: signature,
            userHandle: request.params["user_handle"] ?? "")
    }

    /// The stored passkey `answer` names, once the form of every field is checked (a 400
    /// naming the field, whether or not the credential exists). `outcome` becomes `.unchecked`
    /// when the store cannot be read (a 503: nothing was checked).
    func passkey(
        of answer: PasskeyAssertionResponse, _ request: Request, pending: inout PendingPasskeyChallenges, outcome: inout SignInThrottle.Outcome
    ) async throws -> Passkey {
        let credentialId: [UInt8]
        do {
            try answer.checkForm()
            credentialId = try answer.credentialIdBytes()
        } catch {
            if error.isMalformed { throw HttpError(.badRequest, error.message) }
            throw refused
        }
        let found: Passkey?
        do {
            found = try await store.passkey(credentialId: credentialId)
        } catch {
            throw unavailable(request, error, outcome: &outcome)
        }
        guard let found else { throw refuse(answer, request, pending: &pending) }
        return found
    }

    /// The passkey of `user`'s own that answered `request` (the fields a page's script posts),
    /// verified and its challenge spent; as ``passkey(of:_:pending:outcome:)`` and
    /// ``verify(_:with:user:_:pending:outcome:)`` refuse, with `outcome` set as they set it.
    func ownPasskey(
        of user: String, _ request: Request, pending: inout PendingPasskeyChallenges, outcome: inout SignInThrottle.Outcome
    ) async throws -> Passkey {
        let answer = try Self.answer(request)
        let passkey = try await passkey(of: answer, request, pending: &pending, outcome: &outcome)
        _ = try await verify(answer, with: passkey, user: user, request, pending: &pending, outcome: &outcome)
        return passkey
    }

    /// The refusal of `answer` before its passkey was checked (none, or its user cannot sign
    /// in); its challenge is spent all the same.
    func refuse(_ answer: PasskeyAssertionResponse, _ request: Request, pending: inout PendingPasskeyChallenges) -> HttpError {
        if let clientData = try? PasskeyClientData(answer.clientData) { _ = pending.take(clientData.challenge, for: purpose, at: request.session.now) }
        return refused
    }

    /// Verifies `answer` with `passkey` (for `user`, when the step names one), spends its
    /// challenge on every instance and moves the passkey's counter; what the check found, with
    /// `outcome` then `.success`.
    /// Every refusal here is the one message: the form was checked before the look-up.
    func verify(
        _ answer: PasskeyAssertionResponse, with passkey: Passkey, user: String?, _ request: Request, pending: inout PendingPasskeyChallenges,
        outcome: inout SignInThrottle.Outcome
    ) async throws -> PasskeyUse {
        let now = request.session.now
        let use: PasskeyUse
        do {
            use = try answer.verify(
                purpose: purpose, against: &pending, at: now, relyingParty: relyingParty, passkey: passkey, user: user.map(Username.key),
                userVerification: requiresVerification)
        } catch {
            if error.isPossibleClone {
                request.logger.warning("A passkey of \(passkey.username) (\(passkey.name)) signed with a counter that went back: it may have been copied.")
            }
            throw refused
        }
        var counted = false
        do {
            if try await store.spend(use.challenge, now: now) {
                counted = try await store.use(credentialId: passkey.credentialId, previous: passkey.signCount, signCount: use.signCount, now: now)
            }
        } catch {
            throw unavailable(request, error, outcome: &outcome)
        }
        guard counted else { throw refused }
        outcome = .success
        return use
    }

    /// The answer when the passkeys or the users cannot be read: nothing was checked, so the
    /// attempt does not count (`outcome` becomes `.unchecked`).
    func unavailable(_ request: Request, _ error: any Error, outcome: inout SignInThrottle.Outcome) -> HttpError {
        outcome = .unchecked
        request.logger.error("Passkey sign-in unavailable, the passkeys or the users cannot be read: \(error)")
        return HttpError(.serviceUnavailable, "Sign-in is unavailable right now. Please try again in a minute.", headers: ["Retry-After": "60"])
    }
}
