import Crypto
import MicroCore

/// Who a passkey is for: the relying party id, a host name the passkey is bound to, and the one
/// origin whose pages may use it.
///
/// Both follow the app's address: ``/MicroCore/Settings/publicUrl`` when it is set, else the request's own
/// scheme and host. There is none, and passkeys are not offered, where a browser would refuse
/// them: on an IP address (WebAuthn's relying party id is a domain name) and over plain HTTP
/// anywhere but `localhost`. Nor for an app mounted under a path (`https://example.com/tools`):
/// a passkey belongs to a whole host, and every other app at that origin could ask it to sign.
public struct PasskeyRelyingParty: Sendable, Equatable {
    /// The relying party id: the host, lowercase, without a port (`tools.example.com`).
    public let id: String
    /// The origin the client data must name exactly (`https://tools.example.com`).
    public let origin: String
    /// The origin's port: the one it names, else its scheme's default.
    public let port: Int

    /// The relying party of the app at `origin` (`https://tools.example.com:8443`); nil for an
    /// IP address, plain HTTP other than `localhost`, or text that is no origin.
    public init?(origin text: String) {
        guard let url = try? PublicUrl(text), url.path.isEmpty else { return nil }
        let host = url.host
        guard !host.hasPrefix("["), !Self.isIpv4(host) else { return nil }
        guard url.isHttps || host == "localhost" || host.hasSuffix(".localhost") else { return nil }
        id = host
        origin = url.origin
        port = url.port
        idHash = Array(SHA256.hash(data: Array(host.utf8)))
    }

    /// SHA-256 of the id, which starts the authenticator data of each of its passkeys.
    let idHash: [UInt8]

    private static func isIpv4(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
    }
}
