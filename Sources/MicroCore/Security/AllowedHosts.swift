/// The hosts the app answers for (``Settings/allowedHosts``, the public URL's host, IP literals
/// and `localhost`): a request for any other is refused before anything reads it.
///
/// DNS rebinding points a name the attacker owns at the app's address, so the browser's
/// `Host` names the attacker's site while the page talks to the app as same-origin. An IP
/// literal or `localhost` cannot be rebound, so those stay allowed without a setting (a tool
/// reached by address from a phone); any name must be one the app was given (Django's
/// `ALLOWED_HOSTS`, Rails' `config.hosts`).
///
/// Checked on every request, so by bytes: no strings are made for a `Host` that is an IPv4
/// literal or one of the names.
struct AllowedHosts: Sendable {
    /// Names allowed as they are, lowercase, without a trailing dot.
    private let names: [[UInt8]]
    /// Suffixes (`.example.com`) whose subdomains, and the domain itself, are allowed.
    private let domains: [[UInt8]]

    /// The entries of ``Settings/allowedHosts`` (`tools.example.com`, `.example.com`) and the
    /// public URL's host.
    init(_ entries: [String], publicHost: String?) {
        var names: [[UInt8]] = [Array("localhost".utf8)]
        var domains: [[UInt8]] = []
        for entry in entries + (publicHost.map { [$0] } ?? []) {
            var name = Array(entry.utf8).map(Self.lowercased)
            if name.last == UInt8(ascii: ".") { name.removeLast() }
            if name.first == UInt8(ascii: ".") { domains.append(name) } else if !name.isEmpty { names.append(name) }
        }
        self.names = names
        self.domains = domains
    }

    /// Whether `header` (a `Host` value, `name[:port]` or `[v6]:port`) is one the app answers
    /// for. A request without one is not a browser's (browsers always send it): allowed.
    func allows(_ header: String?) -> Bool {
        guard var header else { return true }
        return header.withUTF8 { allows($0) }
    }

    private func allows(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let host = Self.host(of: value) else { return false }
        if value[host.lowerBound] == UInt8(ascii: "[") {
            // An IPv6 literal: rare enough to parse the usual way.
            let inner = value[(host.lowerBound + 1)..<(host.upperBound - 1)]
            return IpAddress(String(decoding: inner, as: UTF8.self)) != nil
        }
        var name = value[host]
        if name.last == UInt8(ascii: ".") { name = name.dropLast() }
        if name.allSatisfy({ Self.isDigit($0) || $0 == UInt8(ascii: ".") }) { return Self.isIpv4(name) }
        if names.contains(where: { Self.equalIgnoringCase($0[...], name) }) { return true }
        return domains.contains { domain in
            Self.equalIgnoringCase(domain.dropFirst(), name)
                || (name.count > domain.count && Self.equalIgnoringCase(domain[...], name.suffix(domain.count)))
        }
    }

    /// The answer to a request for `host`: 421, naming the settings that would allow it.
    static func refusal(of host: String) -> HttpError {
        let shown = host.unicodeScalars.count > 100 ? String(String.UnicodeScalarView(host.unicodeScalars.prefix(100))) + "…" : host
        return HttpError(
            .misdirectedRequest,
            "This app does not answer for the host '\(shown)'. If it should, add the name to settings.allowedHosts (MICRO_ALLOWED_HOSTS) or set settings.publicUrl (MICRO_PUBLIC_URL).")
    }

    /// The host's range in a `Host` value, without its port; nil when it is malformed (an
    /// empty host, a port that is not one to five digits, an unclosed bracket).
    static func host(of value: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard !value.isEmpty else { return nil }
        let end: Int
        if value[0] == UInt8(ascii: "[") {
            guard let close = value.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            end = close + 1
        } else {
            end = value.firstIndex(of: UInt8(ascii: ":")) ?? value.count
        }
        guard end > 0, end == value.count || isPort(value[end...]) else { return nil }
        return 0..<end
    }

    /// `:` and one to five digits.
    private static func isPort(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        let digits = text.dropFirst()
        return text.first == UInt8(ascii: ":") && (1...5).contains(digits.count) && digits.allSatisfy(isDigit)
    }

    /// Four dot-separated numbers from 0 to 255, without leading zeros (as `inet_pton` reads
    /// them, and as browsers write them).
    private static func isIpv4(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var parts = 0, value = 0, digits = 0, leadingZero = false
        for byte in text {
            if byte == UInt8(ascii: ".") {
                guard digits > 0 else { return false }
                parts += 1
                (value, digits, leadingZero) = (0, 0, false)
                continue
            }
            guard !leadingZero, digits < 3 else { return false }
            if digits == 0, byte == UInt8(ascii: "0") { leadingZero = true }
            value = value * 10 + Int(byte &- 0x30)
            digits += 1
            guard value <= 255 else { return false }
        }
        return digits > 0 && parts == 3
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func lowercased(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }

    /// Whether `a` (lowercase) and `b` are the same name, ASCII case aside: a host name is
    /// ASCII, punycode for the rest.
    private static func equalIgnoringCase<A: Collection<UInt8>, B: Collection<UInt8>>(_ a: A, _ b: B) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0 == lowercased($1) }
    }
}
