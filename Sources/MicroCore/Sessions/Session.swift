import Foundation

/// The session of the request's client: values kept between requests.
///
/// ```swift
/// request.session["theme"] = "dark"                     // strings
/// try request.session.set("prefs", Prefs(zone: "UTC"))  // any Codable value
/// let prefs = request.session.get("prefs", as: Prefs.self)
/// request.session.regenerate()                          // new identity, at sign-in
/// ```
///
/// Keys starting with `_` are Micro's own (flash, CSRF token, sign-in state).
public final class Session {
    @usableFromInline package private(set) var data: SessionData
    /// Whether the values changed in this request (the cookie is written only then).
    private(set) var changed = false
    /// Ids this session had earlier in the request, to destroy in server-side stores.
    private(set) var retiredIds: [String] = []
    /// Whether the session came from the client (as opposed to begun in this request).
    let existed: Bool
    /// Whether the client brought this session in its cookie: false for a session begun in
    /// this request, also when the cookie sent named no valid session (expired, revoked,
    /// forged). A client that keeps its cookie is one whose sessions are worth listing.
    public var cameFromClient: Bool { existed }
    /// Whether the client sent a session cookie that named no valid session.
    var staleCookie = false
    /// Values already decoded in this request, with the JSON they came from, so that reading
    /// one twice (the signed-in user, by a route and by the templates) decodes it once.
    private var decoded: [String: (json: String, value: Any)] = [:]
    /// Values read through a shared cache in this request (``get(_:as:sharedIn:)``), by key:
    /// the signed-in user is read by Micro's session check, the route and the templates, and each
    /// look-up in the shared cache hashes and compares the user's JSON. A change to a key drops
    /// its entry.
    @usableFromInline var sharedReads: [String: any Sendable] = [:]

    /// The request's time (seconds since 1970), by the app's clock: what a plugin stamps the
    /// session's values with, so that tests that move the clock move them too.
    public let now: Int64
    /// The request's time in milliseconds since 1970: what revocations made in it are timed by.
    package let nowMilliseconds: Int64
    /// Where a session begun in this request is given its instant (``restart()``).
    private let revocations: any SessionRevocations

    init(data: SessionData, existed: Bool, nowMilliseconds: Int64, revocations: any SessionRevocations) {
        self.data = data
        self.existed = existed
        self.nowMilliseconds = nowMilliseconds
        now = nowMilliseconds / 1000
        self.revocations = revocations
    }

    /// The session's identity. A new session draws it when first needed (when it is saved),
    /// so requests that never keep a session never pay for the random bytes.
    public var id: String {
        if data.id.isEmpty { data.id = SessionData.randomId() }
        return data.id
    }

    /// Whether it holds no values.
    public var isEmpty: Bool { data.values.isEmpty }

    /// The keys it holds.
    public var keys: [String] { Array(data.values.keys) }

    /// A string value: read, set, or remove (with nil).
    public subscript(key: String) -> String? {
        get { get(key, as: String.self) }
        set {
            if let newValue { try? set(key, newValue) } else { remove(key) }
        }
    }

    /// Whether `key` holds a value.
    public func contains(_ key: String) -> Bool {
        data.values[key] != nil
    }

    /// The value of `key` decoded as `T`; nil when absent or of another type.
    public func get<T: Decodable>(_ key: String, as type: T.Type = T.self) -> T? {
        guard let json = data.values[key] else { return nil }
        if T.self == String.self, let text = Self.plainString(json) { return text as? T }
        if let cached = decoded[key], cached.json.utf8.elementsEqual(json.utf8), let value = cached.value as? T { return value }
        guard let value = Self.decode(json, as: T.self) else { return nil }
        // Only values are kept: an object handed out twice could be changed between reads.
        if !(T.self is AnyObject.Type) { decoded[key] = (json, value) }
        return value
    }

    /// ``get(_:as:)``, with the decoded values shared between requests in `shared`, by their
    /// JSON. Only for types whose decoding is pure (the signed-in user authentication keeps): a
    /// value from the cache skips whatever the type's decoder would have checked again.
    @inlinable
    package func get<T: Decodable & Sendable>(_ key: String, as type: T.Type, sharedIn shared: BoundedCache<ExactString, T>) -> T? {
        if let value = sharedReads[key] as? T { return value }
        guard let value = Self.get(key, in: data, as: type, sharedIn: shared) else { return nil }
        sharedReads[key] = value
        return value
    }

    /// ``get(_:as:sharedIn:)`` on a session's data, before it is a session.
    @inlinable
    package static func get<T: Decodable & Sendable>(
        _ key: String, in data: SessionData, as type: T.Type, sharedIn shared: BoundedCache<ExactString, T>
    ) -> T? {
        guard let json = data.values[key] else { return nil }
        let exact = ExactString(json)
        if let value = shared.value(for: exact) { return value }
        // Decoded from the very JSON it is kept under, never taken from elsewhere.
        guard let value = decode(json, as: T.self) else { return nil }
        shared.remember(value, for: exact)
        return value
    }

    /// Sets `key` to `value`, stored as JSON.
    public func set<T: Encodable>(_ key: String, _ value: T) throws {
        let json: String
        if let text = value as? String, Self.isPlain(text) {
            json = "\"" + text + "\""
        } else {
            // Keys sorted: the same value is always the same JSON (the encoder's order varies
            // from one encoding to the next), so setting it again is no change.
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            json = String(decoding: try encoder.encode(value), as: UTF8.self)
        }
        // Byte for byte: a value canonically equivalent to the one held (another user's name,
        // spelled with a combining accent, say) is another value.
        if let held = data.values[key], held.utf8.elementsEqual(json.utf8) { return }
        data.values[key] = json
        sharedReads[key] = nil
        changed = true
    }

    /// Removes `key`.
    public func remove(_ key: String) {
        guard data.values.removeValue(forKey: key) != nil else { return }
        sharedReads[key] = nil
        changed = true
    }

    /// Removes every value.
    public func clear() {
        guard !data.values.isEmpty else { return }
        data.values.removeAll()
        sharedReads.removeAll()
        changed = true
    }

    /// Gives the session a new identity, keeping its values (but not the CSRF token): call it
    /// when privileges change, at sign-in, so an identity planted before cannot be used after.
    /// With a server-side store, the old session is destroyed.
    public func regenerate() {
        if !data.id.isEmpty { retiredIds.append(data.id) }
        data.id = SessionData.randomId()
        data.values[CsrfToken.sessionKey] = nil
        sharedReads[CsrfToken.sessionKey] = nil
        changed = true
    }

    /// `json` decoded as `T`; nil when it is not one.
    @usableFromInline
    static func decode<T: Decodable>(_ json: String, as type: T.Type) -> T? {
        try? JSONDecoder().decode(T.self, from: Data(json.utf8))
    }

    /// Strings with nothing JSON escapes are stored and read without a JSON coder (most values
    /// are such strings; the coder costs microseconds per use).
    private static func isPlain(_ text: String) -> Bool {
        !text.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "/") }
    }

    /// The text of a JSON string literal without escapes; nil for anything else.
    package static func plainString(_ json: String) -> String? {
        let bytes = json.utf8
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else { return nil }
        // By bytes: dropping Characters would take a combining mark that begins the text
        // (it joins the opening quote into one Character) along with the quote.
        let inner = bytes.dropFirst().dropLast()
        guard !inner.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return nil }
        return String(decoding: inner, as: UTF8.self)
    }

    /// When the session began, or last began anew (``restart()``), in milliseconds since 1970:
    /// a revocation made after it ends it.
    public var createdMilliseconds: Int64 { data.createdMilliseconds }

    /// Begins the session anew at the request's time, as at a sign-in: its absolute lifetime
    /// counts from now, and no revocation made before it ends it, in the same millisecond
    /// included ("sign out everywhere else" revokes, then restarts the session it keeps). Only
    /// at a sign-in, or when the session goes on after its user's other sessions were revoked:
    /// anywhere else it would extend a session past its absolute lifetime.
    public func restart() {
        data.createdMilliseconds = revocations.beginning(at: nowMilliseconds)
        data.lastSeen = now
        changed = true
    }

    /// Restarts the inactivity window at `now`.
    func renew(at now: Int64) {
        data.lastSeen = now
        changed = true
    }
}
