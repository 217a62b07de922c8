import MicroCore

/// A browser's answer to `navigator.credentials.get()`, each field base64url as the sign-in
/// page posts it.
public struct PasskeyAssertionResponse: Sendable {
    /// The credential id (`rawId`), by which the stored passkey is found.
    public var credentialId: String
    /// The client data JSON.
    public var clientData: String
    /// The authenticator data.
    public var authenticatorData: String
    /// The signature over the authenticator data and the client data's hash.
    public var signature: String
    /// The user handle of a discoverable passkey (`response.userHandle`); empty when the
    /// authenticator gave none, which only a second step or a confirmation takes.
    public var userHandle: String

    /// The fields as posted.
    public init(credentialId: String, clientData: String, authenticatorData: String, signature: String, userHandle: String) {
        self.credentialId = credentialId
        self.clientData = clientData
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }

    /// The credential id's bytes, to find the stored passkey by; throws when it is too long or
    /// not base64url.
    public func credentialIdBytes() throws(PasskeyError) -> [UInt8] {
        try PasskeyField.decode(credentialId, "credential id", limit: PasskeyLimits.credentialId)
    }

    /// Checks the form of every field without any passkey: each one's length and base64url, the
    /// client data's JSON and the authenticator data's header. A malformed answer is refused
    /// for this before its credential is looked up, so the refusal is the same whether or not
    /// the credential exists.
    public func checkForm() throws(PasskeyError) {
        _ = try credentialIdBytes()
        _ = try PasskeyClientData(clientData)
        guard PasskeyAuthenticatorHeader(try PasskeyField.decode(authenticatorData, "authenticator data", limit: PasskeyLimits.assertionData)) != nil
        else { throw .malformed("authenticator data") }
        _ = try PasskeyField.decode(signature, "signature", limit: PasskeyLimits.signature)
        if !userHandle.isEmpty { _ = try PasskeyField.decode(userHandle, "user handle", limit: PasskeyLimits.userHandle) }
    }

    /// Verifies the answer with `passkey`, the stored one its credential id found (another
    /// passkey is refused).
    ///
    /// The challenge it names is taken from `pending` for `purpose`, whatever comes after, and
    /// given back in the result: a cookie session's `pending` is only this request's copy, so
    /// the caller spends it in the ``PasskeyStore/spend(_:now:)`` too, which is what makes it
    /// good once. The client data must be a `webauthn.get` of `relyingParty`'s origin. A
    /// sign-in names no user beforehand, so the answer must carry the passkey's user handle;
    /// the other purposes name the user signing in, `user`, whose passkey it must be (and
    /// whose handle, when the answer gives one). The
    /// authenticator data must be for the relying party's id, with the person present (and
    /// verified, with `userVerification`), and as eligible for backup as when it was added;
    /// libfido2 checks the signature; and the counter must have grown unless the authenticator
    /// keeps none.
    public func verify(
        purpose: PasskeyChallenge.Purpose, against pending: inout PendingPasskeyChallenges, at now: Int64,
        relyingParty: PasskeyRelyingParty, passkey: Passkey, user: String?, userVerification: Bool
    ) throws(PasskeyError) -> PasskeyUse {
        let clientData = try PasskeyClientData(clientData)
        guard let challenge = pending.take(clientData.challenge, for: purpose, at: now) else { throw .wrongChallenge }
        try clientData.check(.get, for: relyingParty)
        // The caller found `passkey` by this id; checked here too, so that no caller can verify
        // an answer with another passkey's key.
        guard ConstantTime.equal(try credentialIdBytes(), passkey.credentialId) else { throw .wrongCredential }
        let data = try PasskeyField.decode(authenticatorData, "authenticator data", limit: PasskeyLimits.assertionData)
        let signed = try PasskeyField.decode(signature, "signature", limit: PasskeyLimits.signature)
        if purpose == .signIn {
            let handle = try PasskeyField.decode(userHandle, "user handle", limit: PasskeyLimits.userHandle)
            guard ConstantTime.equal(handle, passkey.userHandle) else { throw .wrongCredential }
        } else {
            guard let user, user == passkey.username else { throw .wrongCredential }
            // A handle given must be the passkey's too (WebAuthn's step for a named user).
            if !userHandle.isEmpty {
                let handle = try PasskeyField.decode(userHandle, "user handle", limit: PasskeyLimits.userHandle)
                guard ConstantTime.equal(handle, passkey.userHandle) else { throw .wrongCredential }
            }
        }
        guard let header = PasskeyAuthenticatorHeader(data) else { throw .malformed("authenticator data") }
        try header.check(for: relyingParty, userVerification: userVerification)
        guard header.backupEligible == passkey.backupEligible else { throw .wrongCredential }
        switch Fido2.verifyAssertion(
            authenticatorData: data, clientData: clientData.bytes, signature: signed, key: passkey.publicKey, relyingPartyId: relyingParty.id,
            userVerification: userVerification)
        {
        case .verified: break
        case .malformedAuthenticatorData: throw .malformed("authenticator data")
        case .unreadableKey, .badSignature: throw .badSignature
        }
        // WebAuthn's rule: a counter is kept once either side is not zero, and must then grow.
        if passkey.signCount != 0 || header.signCount != 0 {
            guard header.signCount > passkey.signCount else { throw .counterWentBack }
        }
        return PasskeyUse(signCount: header.signCount, userVerified: header.userVerified, challenge: challenge)
    }
}
