/// The hosts the app answers for (``Settings/allowedHosts``, the public URL's host, IP literals
/// and `localhost`): a request for any other is refused before anything reads it.
///
/// DNS rebinding points a name the attacker owns at the app's address, so the browser's
/// `Host` names the attacker's site while the page talks to the app as same-origin. An IP
/// literal or `localhost` cannot be rebound, so those stay allowed without a setting (a tool
/// reached by address from a phone); any name must be one the app was given (Django's
/// `ALLOWED_HOSTS`, Rails' `config.hosts`).
struct AllowedHosts: Sendable {
    /// Names allowed as they are, lowercase, without a trailing dot.
    private let names: Set<String>
    /// Suffixes (`.example.com`) whose subdomains, and the domain itself, are allowed.
    private let domains: [String]

    /// The entries of ``Settings/allowedHosts`` (`tools.example.com`, `.example.com`) and the
    /// public URL's host.
    init(_ entries: [String], publicHost: String?) {
        var names = Set<String>()
        var domains: [String] = []
        for entry in entries + (publicHost.map { [$0] } ?? []) {
            let name = Self.normalized(Substring(entry))
            if name.hasPrefix(".") { domains.append(name) } else if !name.isEmpty { names.insert(name) }
        }
        self.names = names
        self.domains = domains
    }

    /// Whether `header` (a `Host` value, `name[:port]` or `[v6]:port`) is one the app answers
    /// for. A request without one is not a browser's (browsers always send it): allowed.
    func allows(_ header: String?) -> Bool {
        guard let header else { return true }
        if names.contains(header) { return true }
        guard let host = Self.host(of: header) else { return false }
        return isAllowed(host)
    }

    private func isAllowed(_ host: Substring) -> Bool {
        if host.first == "[" { return IpAddress(host.dropFirst().dropLast()) != nil }
        // Only digits and dots can be an IPv4 literal; a name skips the parse.
        if host.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") }) { return IpAddress(host) != nil }
        let name = Self.normalized(host)
        if name == "localhost" || names.contains(name) { return true }
        return domains.contains { name.hasSuffix($0) || name == $0.dropFirst() }
    }

    /// The answer to a request for `host`: 421, naming the settings that would allow it.
    static func refusal(of host: String) -> HttpError {
        let shown = host.unicodeScalars.count > 100 ? String(String.UnicodeScalarView(host.unicodeScalars.prefix(100))) + "…" : host
        return HttpError(
            .misdirectedRequest,
            "This app does not answer for the host '\(shown)'. If it should, add the name to settings.allowedHosts (MICRO_ALLOWED_HOSTS) or set settings.publicUrl (MICRO_PUBLIC_URL).")
    }

    /// The host of a `Host` value without its port; nil when it is malformed (an empty host,
    /// a port that is not digits, an unclosed bracket).
    static func host(of header: String) -> Substring? {
        let value = Substring(header)
        if value.first == "[" {
            guard let close = value.firstIndex(of: "]") else { return nil }
            let port = value[value.index(after: close)...]
            guard port.isEmpty || Self.isPort(port) else { return nil }
            return value[...close]
        }
        var host = value
        if let colon = value.firstIndex(of: ":") {
            guard Self.isPort(value[colon...]) else { return nil }
            host = value[..<colon]
        }
        return host.isEmpty ? nil : host
    }

    /// `:` and one to five digits.
    private static func isPort(_ text: Substring) -> Bool {
        let digits = text.utf8.dropFirst()
        return text.first == ":" && (1...5).contains(digits.count) && digits.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// Lowercase (ASCII only: a host name is ASCII, punycode for the rest), without the
    /// trailing dot of a fully qualified name.
    private static func normalized(_ name: Substring) -> String {
        var name = name
        if name.hasSuffix(".") { name = name.dropLast() }
        return String(decoding: name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
