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
    /// The address of the browser that added it (``/MicroCore/Request/clientAddress``), cut to a
    /// bounded length; empty when not known.
    public var addedFromAddress: String
    /// The `User-Agent` of the browser that added it, cut to a bounded length, as the browser
    /// sent it: a page shows its summary (``/MicroAccounts/UserAgentSummary``), never the text itself unescaped.
    public var addedFromUserAgent: String

    /// A passkey record; the address and `User-Agent` are cut to their limits, at a character's
    /// boundary.
    public init(
        credentialId: [UInt8], username: String, userHandle: [UInt8], name: String, publicKey: PasskeyPublicKey, signCount: UInt32,
        backupEligible: Bool, createdAt: Int64, lastUsedAt: Int64 = 0, addedFromAddress: String = "", addedFromUserAgent: String = ""
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
        self.addedFromAddress = Self.prefix(of: addedFromAddress, bytes: PasskeyLimits.addedFromAddress)
        self.addedFromUserAgent = Self.prefix(of: addedFromUserAgent, bytes: PasskeyLimits.addedFromUserAgent)
    }

    /// The longest run of `text`'s first Unicode scalars that fits in `bytes` bytes of UTF-8.
    static func prefix(of text: String, bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        var kept = String.UnicodeScalarView()
        var count = 0
        for scalar in text.unicodeScalars {
            count += UTF8.width(scalar)
            guard count <= bytes else { break }
            kept.append(scalar)
        }
        return String(kept)
    }
}
