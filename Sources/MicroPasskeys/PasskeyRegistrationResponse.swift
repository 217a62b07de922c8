import MicroCore

/// A browser's answer to `navigator.credentials.create()`, each field as the passkeys page
/// posts it (base64url, and the algorithm the browser read from the new key).
///
/// Registration asks for no attestation, so its authenticator data is all that is read, and
/// from it the credential and key only through libfido2.
public struct PasskeyRegistrationResponse: Sendable {
    /// The credential id (`rawId`).
    public var credentialId: String
    /// The client data JSON (`response.clientDataJSON`).
    public var clientData: String
    /// The authenticator data (`response.getAuthenticatorData()`).
    public var authenticatorData: String
    /// The COSE algorithm of the new key (`response.getPublicKeyAlgorithm()`); libfido2 checks
    /// that the key is of it.
    public var algorithm: Int

    /// The fields as posted.
    public init(credentialId: String, clientData: String, authenticatorData: String, algorithm: Int) {
        self.credentialId = credentialId
        self.clientData = clientData
        self.authenticatorData = authenticatorData
        self.algorithm = algorithm
    }

    /// Verifies the answer and gives the passkey it makes. The challenge it names is taken from
    /// `pending`, whatever comes after, and given back in the result: a cookie session's
    /// `pending` is only this request's copy, so the caller spends it in the
    /// ``PasskeyStore/spend(_:now:)`` too, which is what makes it good once. The client data must be a `webauthn.create` of
    /// `relyingParty`'s origin; the authenticator data must be for its id, with the person
    /// present (and verified, with `userVerification`), and carry a key of ES256, EdDSA or
    /// RS256 whose credential id is the one posted.
    public func verify(
        against pending: inout PendingPasskeyChallenges, at now: Int64, relyingParty: PasskeyRelyingParty, userVerification: Bool
    ) throws(PasskeyError) -> NewPasskey {
        let clientData = try PasskeyClientData(clientData)
        guard let challenge = pending.take(clientData.challenge, for: .registration, at: now) else { throw .wrongChallenge }
        try clientData.check(.create, for: relyingParty)
        let postedId = try PasskeyField.decode(credentialId, "credential id", limit: PasskeyLimits.credentialId)
        let data = try PasskeyField.decode(authenticatorData, "authenticator data", limit: PasskeyLimits.registrationData)
        guard let algorithm = Int32(exactly: algorithm).flatMap(PasskeyAlgorithm.init(rawValue:)) else { throw .unsupportedAlgorithm }
        guard let header = PasskeyAuthenticatorHeader(data), let credential = Fido2.attestedCredential(in: data, algorithm: algorithm),
            Fido2.isUsable(credential.publicKey)
        else {
            throw .malformed("authenticator data")
        }
        try header.check(for: relyingParty, userVerification: userVerification)
        guard ConstantTime.equal(credential.id, postedId) else { throw .wrongCredential }
        return NewPasskey(
            credentialId: credential.id, publicKey: credential.publicKey, signCount: credential.signCount,
            userVerified: header.userVerified, backupEligible: header.backupEligible, challenge: challenge)
    }
}
