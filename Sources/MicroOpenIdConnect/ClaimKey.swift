#if OpenIdConnect
/// A JWT claim's name as a coding key: the claims types read the names they know and, for
/// roles and users, whatever else the token holds.
struct ClaimKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    /// Every claim of `container` whose value is a string or a list of strings, by name (at
    /// most `limit` claims read): what a roles or a user claim is read from.
    static func strings(in container: KeyedDecodingContainer<ClaimKey>, limit: Int = 256) -> [String: [String]] {
        var strings: [String: [String]] = [:]
        for key in container.allKeys.prefix(limit) {
            if let text = try? container.decode(String.self, forKey: key) {
                strings[key.stringValue] = [text]
            } else if let list = try? container.decode([String].self, forKey: key) {
                strings[key.stringValue] = list
            }
        }
        return strings
    }
}
#endif
