#if OpenIdConnect
import Foundation

/// The parts of a provider's discovery document (`/.well-known/openid-configuration`)
/// Micro uses.
public struct ProviderMetadata: Sendable, Codable, Equatable {
    /// Must equal the configured issuer exactly.
    public var issuer: String
    /// Where the browser is sent to sign in.
    public var authorizationEndpoint: String
    /// Where the code is exchanged for tokens.
    public var tokenEndpoint: String
    /// The provider's signing keys.
    public var jwksUri: String
    /// Where the browser is sent to sign out at the provider too (RP-initiated logout).
    public var endSessionEndpoint: String?
    /// The algorithms the provider signs ID tokens with.
    public var idTokenSigningAlgValuesSupported: [String]?
    /// How the provider wants clients to authenticate at the token endpoint.
    public var tokenEndpointAuthMethodsSupported: [String]?
    /// Whether the provider says it sends back-channel logouts.
    public var backchannelLogoutSupported: Bool?

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case jwksUri = "jwks_uri"
        case endSessionEndpoint = "end_session_endpoint"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case backchannelLogoutSupported = "backchannel_logout_supported"
    }

    /// Whether the client sends its secret in the form body (`client_secret_post`): only when
    /// the provider lists that method and not `client_secret_basic`.
    var usesSecretInBody: Bool {
        guard let methods = tokenEndpointAuthMethodsSupported else { return false }
        return methods.contains("client_secret_post") && !methods.contains("client_secret_basic")
    }

    /// Why the document cannot be used for `issuer`; nil when it can.
    func problem(forIssuer expected: String) -> String? {
        guard issuer == expected else {
            return "the discovery document names the issuer '\(issuer)', not the configured '\(expected)'"
        }
        for (name, url) in [("authorization_endpoint", authorizationEndpoint), ("token_endpoint", tokenEndpoint), ("jwks_uri", jwksUri)] + (endSessionEndpoint.map { [("end_session_endpoint", $0)] } ?? []) {
            if let problem = ProviderUrl.problem(url) { return "its \(name) \(problem)" }
        }
        return nil
    }
}

/// The rule for every URL of the provider: `https`, except on a loopback address.
enum ProviderUrl {
    /// Why `text` may not be a provider URL; nil when it may.
    static func problem(_ text: String) -> String? {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            return "'\(text)' is not an absolute URL"
        }
        if scheme == "https" { return nil }
        if scheme == "http" && isLoopback(host) { return nil }
        return "'\(text)' is not https (plain http is allowed only on a loopback address: 127.0.0.1, [::1], localhost)"
    }

    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
            && host.split(separator: ".").count == 4 && host.split(separator: ".").allSatisfy { UInt8($0) != nil }
    }
}
#endif
