import Foundation

/// The reverse proxies in front of the app (``Settings/trustedProxies``), whose
/// `X-Forwarded-For` and `X-Forwarded-Host` Micro believes.
///
/// A client can send those headers itself, so they count only when the connection comes from a
/// trusted proxy, and `X-Forwarded-For` is read from the right: each trusted proxy appended
/// the address it saw, so the first untrusted address from the right is the client's, whatever
/// the client wrote to the left of it (Rails' `remote_ip`, Flask's `ProxyFix`).
struct TrustedProxies: Sendable {
    private let ranges: [AddressRange]
    /// The values of `X-Forwarded-Prefix` believed (``Settings/forwardedPrefixes``).
    private let prefixes: Set<String>

    /// The ranges of `entries`; ``Settings/problems()`` reports the ones that do not parse.
    init(_ entries: [String], prefixes: [String] = []) {
        ranges = entries.compactMap(AddressRange.init)
        self.prefixes = Set(prefixes)
    }

    /// Whether `address` is one of the proxies.
    func trusts(_ address: String?) -> Bool {
        guard !ranges.isEmpty, let address, let parsed = IpAddress(address) else { return false }
        return trusts(parsed)
    }

    private func trusts(_ address: IpAddress) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// The client's address, written as `inet_ntop` writes it (an IPv4-mapped one as IPv4): the
    /// peer's, or, when the peer is a trusted proxy, the first address from the right of
    /// `X-Forwarded-For` that is not one. A malformed or empty entry ends the walk at the last
    /// trusted hop, so a client cannot choose the address it is counted under.
    func clientAddress(peer: String?, headers: HttpHeaders) -> String? {
        guard let peer else { return nil }
        guard let peerAddress = IpAddress(peer) else { return peer }
        guard trusts(peerAddress) else { return peerAddress.text }
        var client = peerAddress
        let hops = headers["X-Forwarded-For"].flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
        for hop in hops.reversed() {
            guard let address = Self.addressText(hop).flatMap(IpAddress.init) else { break }
            client = address
            if !trusts(address) { break }
        }
        return client.text
    }

    /// The host the client asked for: the last `X-Forwarded-Host` (the nearest proxy's) when
    /// `peer` is a trusted proxy, else nil.
    func forwardedHost(peer: String?, headers: HttpHeaders) -> String? {
        guard trusts(peer), let value = headers["X-Forwarded-Host"].last else { return nil }
        let host = value.split(separator: ",", omittingEmptySubsequences: false).last.map { $0.trimmingSpaces() } ?? ""
        return host.isEmpty ? nil : host
    }

    /// The scheme the client used, `http` or `https`, from a trusted proxy's last
    /// `X-Forwarded-Proto`; else nil.
    func forwardedProto(peer: String?, headers: HttpHeaders) -> String? {
        guard trusts(peer), let value = headers["X-Forwarded-Proto"].last else { return nil }
        let proto = value.split(separator: ",", omittingEmptySubsequences: false).last.map { $0.trimmingSpaces().lowercased() }
        return proto == "http" || proto == "https" ? proto : nil
    }

    /// The path a trusted proxy mounts the app under (`X-Forwarded-Prefix: /tools`, the
    /// nearest proxy's), when `peer` is a trusted proxy and the value is one the app lists;
    /// else nil. A proxy may pass a client's own header on, so an unlisted value is the
    /// client's word, not the proxy's.
    func forwardedPrefix(peer: String?, headers: HttpHeaders) -> String? {
        guard !prefixes.isEmpty, trusts(peer), let value = headers["X-Forwarded-Prefix"].last else { return nil }
        let prefix = value.split(separator: ",", omittingEmptySubsequences: false).last.map { $0.trimmingSpaces() } ?? ""
        return prefixes.contains(prefix) ? prefix : nil
    }

    /// An `X-Forwarded-For` entry without spaces, brackets or port (`[2001:db8::1]:80`,
    /// `203.0.113.7:4711`); nil when there is nothing left.
    private static func addressText(_ hop: Substring) -> String? {
        var text = Substring(hop.trimmingSpaces())
        if text.first == "[", let close = text.firstIndex(of: "]") {
            text = text[text.index(after: text.startIndex)..<close]
        } else if let colon = text.firstIndex(of: ":"), text[text.index(after: colon)...].allSatisfy({ $0.isASCII && $0.isNumber }) {
            // One colon followed by digits only: IPv4 with a port (IPv6 has several colons).
            text = text[..<colon]
        }
        return text.isEmpty ? nil : String(text)
    }
}
