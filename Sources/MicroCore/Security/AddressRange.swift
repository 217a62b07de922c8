import Foundation

/// An address or a CIDR range of them: `10.0.0.1`, `10.0.0.0/8`, `fd00::/8`; an IPv4-mapped
/// range (`::ffff:10.0.0.0/104`) is its IPv4 range. ``Settings/trustedProxies`` is a list of
/// them; a plug-in that believes a header from some addresses only checks them with one.
public struct AddressRange: Sendable {
    let network: IpAddress
    let prefixLength: Int

    /// The range `text` writes; nil when it is no address or range.
    public init?(_ text: String) {
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

    /// Whether `address` (as a connection's ``Request/remoteAddress`` writes it) is in the
    /// range; false for text that is no address.
    public func contains(_ address: String) -> Bool {
        guard let parsed = IpAddress(address) else { return false }
        return contains(parsed)
    }

    /// Whether every address of `other` is in this range.
    public func contains(_ other: AddressRange) -> Bool {
        other.network.bytes.count == network.bytes.count && other.prefixLength >= prefixLength && contains(other.network)
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
