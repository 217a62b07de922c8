/// The sessions of the cookies ``CookieSessionStore`` opened recently, by cookie value.
///
/// A browser sends the same cookie with every request until its session changes, and opening
/// one (base64, AES-GCM, decoding) showed in the profile of a rendered page.
/// Only values that opened are kept, so a forged cookie never enters; the store looks up only
/// values of the base64url alphabet, so canonically equivalent spellings never meet. Expiry is
/// not cached: the caller checks the session's times on every request, as for a cookie just
/// opened.
typealias OpenedCookieCache = BoundedCache<String, SessionData>

extension BoundedCache where Key == String, Value == SessionData {
    /// A cache of at most `capacity` sessions and about `byteLimit` bytes.
    convenience init(capacity: Int = 1024, byteLimit: Int = 1 << 20) {
        self.init(capacity: capacity, byteLimit: byteLimit, size: Self.size(of:_:))
    }

    /// What an entry costs, near enough: its cookie value, the session's id and values, and a
    /// share of the tables and string headers.
    static func size(of value: String, _ data: SessionData) -> Int {
        var size = 128 + value.utf8.count + data.id.utf8.count
        for (key, text) in data.values { size += 64 + key.utf8.count + text.utf8.count }
        return size
    }
}
