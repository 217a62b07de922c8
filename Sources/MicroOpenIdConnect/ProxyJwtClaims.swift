#if OpenIdConnect
import Foundation
import JWTKit

/// The claims of a sign-in proxy's JWT that Micro reads. Decoding checks only their types;
/// ``JwtVerifier`` checks the signature, the issuer, the audience and the times.
struct ProxyJwtClaims: ProviderJwtClaims, Sendable {
    var issuer: String
    var audience: AudienceClaim
    var issuedAt: Double
    var expires: Double
    var expiresAt: Double? { expires }
    /// `email`.
    var email: String?
    /// `email_verified`; nil when the proxy does not say (Cloudflare Access and IAP vouch for
    /// the address by signing it).
    var emailVerified: Bool?
    /// Every claim whose value is a string or a list of strings, by name.
    var strings: [String: [String]]

    /// Nothing here: ``JwtVerifier`` checks the claims against its own clock and settings.
    func verify(using algorithm: some JWTAlgorithm) async throws {}

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        issuer = try container.decode(String.self, forKey: Key("iss"))
        audience = try container.decode(AudienceClaim.self, forKey: Key("aud"))
        issuedAt = try container.decode(Double.self, forKey: Key("iat"))
        expires = try container.decode(Double.self, forKey: Key("exp"))
        email = try? container.decodeIfPresent(String.self, forKey: Key("email"))
        if let flag = try? container.decodeIfPresent(Bool.self, forKey: Key("email_verified")) {
            emailVerified = flag
        } else if let text = try? container.decodeIfPresent(String.self, forKey: Key("email_verified")) {
            emailVerified = text == "true"
        }
        var strings: [String: [String]] = [:]
        for key in container.allKeys.prefix(256) {
            if let text = try? container.decode(String.self, forKey: key) {
                strings[key.stringValue] = [text]
            } else if let list = try? container.decode([String].self, forKey: key) {
                strings[key.stringValue] = list
            }
        }
        self.strings = strings
    }

    /// Unused: Micro never writes these.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(issuer, forKey: Key("iss"))
        try container.encode(audience.value, forKey: Key("aud"))
        try container.encode(issuedAt, forKey: Key("iat"))
        try container.encode(expires, forKey: Key("exp"))
    }
}
#endif
