import Foundation

/// An IP address as its 4 (IPv4) or 16 (IPv6) bytes; an IPv4-mapped IPv6 address
/// (`::ffff:10.0.0.1`, how a dual-stack socket shows an IPv4 client) is its IPv4 address.
package struct IpAddress: Sendable {
    package let bytes: [UInt8]
    /// Whether the text was an IPv4-mapped IPv6 address.
    let wasMapped: Bool

    /// The address of these 4 or 16 bytes.
    init(bytes: [UInt8]) {
        precondition(bytes.count == 4 || bytes.count == 16, "an IP address has 4 or 16 bytes")
        self.bytes = bytes
        wasMapped = false
    }

    package init?(_ text: some StringProtocol) {
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
