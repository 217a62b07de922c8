import MicroCore

/// A bearer token a provisioning client (Okta, Entra) sends to the SCIM endpoints
/// (``ScimProvisioning``), as its store keeps it: its SHA-256 digest, never the token. A SCIM
/// token opens the SCIM endpoints only, and no user's API token opens them.
///
/// ```swift
/// let (secret, token) = ScimToken.make(name: "okta", now: now)
/// try await DatabaseScimStore(database).add(token)    // `secret` goes to the provider
/// ```
public struct ScimToken: Sendable, Equatable {
    /// The entry's opaque id.
    public var id: String
    /// The SHA-256 digest of the token, in lowercase hex.
    public var digest: String
    /// What the operator called it (`okta`), named in the audit by every change it makes.
    public var name: String
    /// When it was made (seconds since 1970).
    public var createdAt: Int64
    /// When it was last used, to the minute.
    public var lastUsedAt: Int64

    /// A token entry.
    public init(id: String, digest: String, name: String, createdAt: Int64, lastUsedAt: Int64 = 0) {
        self.id = id
        self.digest = digest
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }

    /// What every SCIM token starts with: apart from API tokens' `micro_`, so that neither is
    /// mistaken for the other, and secret scanners can tell them.
    public static let prefix = "micro_scim_"
    /// The length of a token: the prefix and 43 base64url characters (256 random bits).
    public static let length = prefix.utf8.count + 43
    /// The longest name, in UTF-8 bytes.
    public static let nameLength = 64

    /// A new token named `name` and the entry a store keeps of it.
    public static func make(name: String, now: Int64) -> (secret: String, token: ScimToken) {
        let secret = prefix + Base64Url.encode(SecureRandom.bytes(32))
        let id = Base64Url.encode(SecureRandom.bytes(16))
        return (secret, ScimToken(id: id, digest: ApiTokenSecret.digest(of: secret), name: name, createdAt: now))
    }

    /// Whether `text` has a SCIM token's shape: anything else is refused before a look-up.
    public static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == length && text.hasPrefix(prefix) && Base64Url.isAlphabet(text)
    }

    /// Why `name` cannot name a token (1 to ``nameLength`` bytes, no control or text-direction
    /// characters); nil when it can.
    public static func problem(withName name: String) -> String? {
        let clean = !name.unicodeScalars.contains { scalar in
            let category = scalar.properties.generalCategory
            return category == .control || category == .format || category == .lineSeparator || category == .paragraphSeparator
        }
        guard (1...nameLength).contains(name.utf8.count), clean else {
            return "A SCIM token's name is 1 to \(nameLength) bytes, without control or text-direction characters."
        }
        return nil
    }
}
