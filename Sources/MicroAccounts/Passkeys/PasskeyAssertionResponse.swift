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
    /// authenticator gave none.
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

    /// Verifies the answer with the stored passkey found by its credential id: `publicKey`, its
    /// last `signCount` and its user's `userHandle`.
    ///
    /// The challenge it names is taken from `pending` for `purpose` (spent, whatever comes
    /// after); the client data must be a `webauthn.get` of `relyingParty`'s origin; the
    /// authenticator data must be for its id with the person present (and verified, with
    /// `userVerification`); a user handle, when given, must be the user's; libfido2 checks the
    /// signature; and the counter must have grown unless the authenticator keeps none.
    public func verify(
        purpose: PasskeyChallenge.Purpose, against pending: inout PendingPasskeyChallenges, at now: Int64,
        relyingParty: PasskeyRelyingParty, publicKey: PasskeyPublicKey, signCount: UInt32, userHandle expectedHandle: [UInt8],
        userVerification: Bool
    ) throws(PasskeyError) -> PasskeyUse {
        let clientData = try PasskeyClientData(clientData)
        guard pending.take(clientData.challenge, for: purpose, at: now) != nil else { throw .wrongChallenge }
        try clientData.check(.get, for: relyingParty)
        let data = try PasskeyField.decode(authenticatorData, "authenticator data", limit: PasskeyLimits.authenticatorData)
        let signed = try PasskeyField.decode(signature, "signature", limit: PasskeyLimits.signature)
        if !userHandle.isEmpty {
            let handle = try PasskeyField.decode(userHandle, "user handle", limit: PasskeyLimits.userHandle)
            guard Totp.constantTimeEqual(handle, expectedHandle) else { throw .wrongCredential }
        }
        guard let header = PasskeyAuthenticatorHeader(data) else { throw .malformed("authenticator data") }
        try header.check(for: relyingParty, userVerification: userVerification)
        switch Fido2.verifyAssertion(
            authenticatorData: data, clientData: clientData.bytes, signature: signed, key: publicKey, relyingPartyId: relyingParty.id,
            userVerification: userVerification)
        {
        case .verified: break
        case .malformedAuthenticatorData: throw .malformed("authenticator data")
        case .unreadableKey, .badSignature: throw .badSignature
        }
        // WebAuthn's rule: a counter is kept once either side is not zero, and must then grow.
        if signCount != 0 || header.signCount != 0 {
            guard header.signCount > signCount else { throw .counterWentBack }
        }
        return PasskeyUse(signCount: header.signCount, userVerified: header.userVerified)
    }
}
