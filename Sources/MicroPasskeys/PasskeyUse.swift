/// A sign-in a passkey's assertion verified.
public struct PasskeyUse: Sendable, Equatable {
    /// The counter to store for the passkey now.
    public let signCount: UInt32
    /// Whether the authenticator verified the person: a passkey that did is two factors.
    public let userVerified: Bool
    /// The challenge it answered, taken from the pending ones: to be spent in the store.
    public let challenge: PasskeyChallenge
}
