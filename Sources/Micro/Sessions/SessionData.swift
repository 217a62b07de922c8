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

    /// 32 random bytes, base64url-encoded.
    static func randomId() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Base64Url.encode(bytes)
    }
}

/// Base64 with the URL and cookie safe alphabet, without padding (RFC 4648, section 5).
enum Base64Url {
    static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes `text` encodes; nil unless `text` is exactly what ``encode(_:)`` makes of them.
    ///
    /// Only the canonical form is accepted: the decoder ignores the spare low bits of the last
    /// character, so without this check several texts would decode to the same bytes, and a
    /// changed cookie or token would still be taken for the one the app issued.
    static func decode(_ text: String) -> Data? {
        guard text.utf8.allSatisfy({ byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), encode(data) == text else { return nil }
        return data
    }
}
