import MicroCore

/// Makes a path safe to redirect to after sign-in: a path on this site, never another site.
enum LocalPath {
    /// `raw` as a local path, or nil when it cannot be one. Leading slashes (and their encoded
    /// forms) collapse to one, as Devise does, so `//evil.example/x` becomes `/evil.example/x`;
    /// a backslash or a control character anywhere, written out or percent-encoded, refuses the
    /// path. The query stays.
    static func sanitize(_ raw: String) -> String? {
        // By bytes throughout: Characters would not see a slash that a mark after it joins into
        // one Character (U+FE0F), and "//\u{FE0F}evil.example" names another site.
        var rest = Substring(raw).utf8
        guard rest.first == UInt8(ascii: "/"), rest.count <= 2048 else { return nil }
        while rest.first == UInt8(ascii: "/") || PercentEncoding.escapedByte(atStartOf: rest) == UInt8(ascii: "/") {
            rest = rest.dropFirst(rest.first == UInt8(ascii: "/") ? 1 : 3)
        }
        for index in rest.indices {
            var byte = rest[index]
            if byte == UInt8(ascii: "%"), let escaped = PercentEncoding.escapedByte(atStartOf: rest[index...]) { byte = escaped }
            if byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\\") { return nil }
        }
        return "/" + String(Substring(rest))
    }
}
