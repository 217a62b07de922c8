import Foundation

/// What a session holds, as stores keep it: an identity, its times, and the values by key
/// (each value as JSON text).
public struct SessionData: Codable, Sendable, Equatable {
    /// A random identity, new at each ``Session/regenerate()``.
    public var id: String
    /// When the session began, in milliseconds since 1970: the start of its absolute lifetime,
    /// and what revocations compare it by, finer than a second so that a sign-in just after a
    /// "sign out everywhere" is not taken for a session from before it.
    public var createdMilliseconds: Int64
    /// When the session was last renewed (seconds since 1970): the start of its inactivity window.
    public var lastSeen: Int64
    /// The values, by key, as JSON text.
    public var values: [String: String]

    /// A new, empty session at `now` (seconds since 1970).
    public init(now: Int64) {
        id = Self.randomId()
        createdMilliseconds = now * 1000
        lastSeen = now
        values = [:]
    }

    init(id: String, createdMilliseconds: Int64, lastSeen: Int64) {
        self.id = id
        self.createdMilliseconds = createdMilliseconds
        self.lastSeen = lastSeen
        values = [:]
    }

    /// 32 random bytes, base64url-encoded.
    package static func randomId() -> String {
        Base64Url.encode(SecureRandom.bytes(32))
    }
}
