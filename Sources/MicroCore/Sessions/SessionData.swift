import Foundation

/// What a session holds, as stores keep it: an identity, its times, and the values by key
/// (each value as JSON text).
public struct SessionData: Codable, Sendable, Equatable {
    /// A random identity, new at each ``Session/regenerate()``.
    public var id: String
    /// When the session began (seconds since 1970): the start of its absolute lifetime.
    public var created: Int64
    /// When the session was last renewed (seconds since 1970): the start of its inactivity window.
    public var lastSeen: Int64
    /// The values, by key, as JSON text.
    public var values: [String: String]

    /// A new, empty session at `now`.
    public init(now: Int64) {
        id = Self.randomId()
        created = now
        lastSeen = now
        values = [:]
    }

    init(id: String, created: Int64, lastSeen: Int64) {
        self.id = id
        self.created = created
        self.lastSeen = lastSeen
        values = [:]
    }

    /// 32 random bytes, base64url-encoded.
    package static func randomId() -> String {
        Base64Url.encode(SecureRandom.bytes(32))
    }
}
