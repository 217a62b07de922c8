/// A passkey as the store keeps it for its user: the credential id it is found by, the public
/// key that checks its signatures, and what the passkeys page shows.
public struct Passkey: Sendable, Equatable {
    /// The credential id the authenticator chose.
    public var credentialId: [UInt8]
    /// Whose passkey it is (the ``/MicroAuth/Username/key(_:)`` form).
    public var username: String
    /// The random id the authenticator keeps for the user (never the username, so that a user
    /// removed and added again, or renamed, is not taken for the old one).
    public var userHandle: [UInt8]
    /// The name its owner gave it.
    public var name: String
    /// Its public key.
    public var publicKey: PasskeyPublicKey
    /// The last signature counter seen; zero from authenticators that keep none.
    public var signCount: UInt32
    /// Whether it may be synced to its owner's other devices, as it said when added: an
    /// answer that says otherwise is not from it.
    public var backupEligible: Bool
    /// When it was added (seconds since 1970).
    public var createdAt: Int64
    /// When it last signed in; 0 when never.
    public var lastUsedAt: Int64

    /// A passkey record.
    public init(
        credentialId: [UInt8], username: String, userHandle: [UInt8], name: String, publicKey: PasskeyPublicKey, signCount: UInt32,
        backupEligible: Bool, createdAt: Int64, lastUsedAt: Int64 = 0
    ) {
        self.credentialId = credentialId
        self.username = username
        self.userHandle = userHandle
        self.name = name
        self.publicKey = publicKey
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}
