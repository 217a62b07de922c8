/// Makes a path safe to redirect to after sign-in: a path on this site, never another site.
enum LocalPath {
    /// `raw` as a local path, or nil when it cannot be one. Leading slashes (and their encoded
    /// forms) collapse to one, as Devise does, so `//evil.example/x` becomes `/evil.example/x`;
    /// a backslash, a control character or a scheme anywhere refuses the path. The query stays.
    static func sanitize(_ raw: String) -> String? {
        guard raw.utf8.first == UInt8(ascii: "/"), raw.utf8.count <= 2048 else { return nil }
        // By bytes: a Character comparison would not see the slash in "/" followed by a
        // mark that joins it (U+FE0F), and "//\u{FE0F}evil.example" names another site.
        var rest = Substring(raw)
        while true {
            let bytes = rest.utf8
            if bytes.first == UInt8(ascii: "/") {
                rest = Substring(bytes.dropFirst())
            } else if bytes.count >= 3, bytes.starts(with: "%2".utf8),
                bytes.dropFirst(2).first.map({ $0 | 0x20 }) == UInt8(ascii: "f")
            {
                rest = Substring(bytes.dropFirst(3))
            } else {
                break
            }
        }
        let lowered = rest.lowercased()
        guard !rest.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") }),
            !lowered.contains("%5c"), !Self.hasEncodedControl(lowered)
        else { return nil }
        return "/" + rest
    }

    private static func hasEncodedControl(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 3 else { return false }
        for index in 0..<(bytes.count - 2) where bytes[index] == UInt8(ascii: "%") {
            let high = bytes[index + 1]
            let low = bytes[index + 2]
            if high == UInt8(ascii: "0") || high == UInt8(ascii: "1") { return true }  // %00-%1F
            if high == UInt8(ascii: "7"), low == UInt8(ascii: "f") { return true }  // %7F
        }
        return false
    }
}
