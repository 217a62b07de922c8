/// A passkey a registration verified, to be stored for its user.
public struct NewPasskey: Sendable, Equatable {
    /// The credential id the authenticator chose.
    public let credentialId: [UInt8]
    /// Its public key.
    public let publicKey: PasskeyPublicKey
    /// The signature counter it started at; zero when it keeps none.
    public let signCount: UInt32
    /// Whether the authenticator verified the person while making it.
    public let userVerified: Bool
    /// Whether it may be synced to the person's other devices.
    public let backupEligible: Bool
    /// The challenge it answered, taken from the pending ones: to be spent in the store.
    public let challenge: PasskeyChallenge
}
