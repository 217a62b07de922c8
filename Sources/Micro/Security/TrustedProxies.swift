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

    /// The ranges of `entries`; ``Settings/problems()`` reports the ones that do not parse.
    init(_ entries: [String]) {
        ranges = entries.compactMap(AddressRange.init)
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

    /// The path a trusted proxy mounts the app under (`X-Forwarded-Prefix: /tools`, the
    /// nearest proxy's), when `peer` is a trusted proxy and it is a plain path; else nil.
    func forwardedPrefix(peer: String?, headers: HttpHeaders) -> String? {
        guard trusts(peer), let value = headers["X-Forwarded-Prefix"].last else { return nil }
        let prefix = value.split(separator: ",", omittingEmptySubsequences: false).last.map { $0.trimmingSpaces() } ?? ""
        return PathScope.problem(with: prefix) == nil ? prefix : nil
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

/// An IP address as its 4 (IPv4) or 16 (IPv6) bytes; an IPv4-mapped IPv6 address
/// (`::ffff:10.0.0.1`, how a dual-stack socket shows an IPv4 client) is its IPv4 address.
struct IpAddress: Sendable {
    let bytes: [UInt8]
    /// Whether the text was an IPv4-mapped IPv6 address.
    let wasMapped: Bool

    /// The address of these 4 or 16 bytes.
    init(bytes: [UInt8]) {
        precondition(bytes.count == 4 || bytes.count == 16, "an IP address has 4 or 16 bytes")
        self.bytes = bytes
        wasMapped = false
    }

    init?(_ text: some StringProtocol) {
        var text = String(text)
        // A zone (`fe80::1%eth0`) names an interface, not part of the address; only IPv6 has one.
        if text.contains(":"), let percent = text.firstIndex(of: "%") { text = String(text[..<percent]) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            wasMapped = false
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let all = withUnsafeBytes(of: &v6) { Array($0) }
        wasMapped = all[..<10].allSatisfy { $0 == 0 } && all[10] == 0xFF && all[11] == 0xFF
        bytes = wasMapped ? Array(all[12...]) : all
    }

    /// The address as `inet_ntop` writes it: `203.0.113.7`, `2001:db8::1` (lowercase, zeros
    /// compressed), so that one address always reads the same.
    var text: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// An address or a CIDR range of them: `10.0.0.1`, `10.0.0.0/8`, `fd00::/8`; an IPv4-mapped
/// range (`::ffff:10.0.0.0/104`) is its IPv4 range.
struct AddressRange: Sendable {
    let network: IpAddress
    let prefixLength: Int

    init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let network = IpAddress(parts[0]) else { return nil }
        let bits = network.bytes.count * 8
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), var length = Int(parts[1]) else { return nil }
            if network.wasMapped {
                // Written over the whole IPv6 address: the first 96 bits are the mapping's.
                guard length >= 96 else { return nil }
                length -= 96
            }
            guard (0...bits).contains(length) else { return nil }
            prefixLength = length
        } else {
            prefixLength = bits
        }
        self.network = network
    }

    func contains(_ address: IpAddress) -> Bool {
        guard address.bytes.count == network.bytes.count else { return false }
        var remaining = prefixLength
        for (mine, theirs) in zip(network.bytes, address.bytes) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if mine & mask != theirs & mask { return false }
            remaining -= 8
        }
        return true
    }
}
