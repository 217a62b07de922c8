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

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ClaimKey.self)
        issuer = try container.decode(String.self, forKey: ClaimKey("iss"))
        audience = try container.decode(AudienceClaim.self, forKey: ClaimKey("aud"))
        issuedAt = try container.decode(Double.self, forKey: ClaimKey("iat"))
        expires = try container.decode(Double.self, forKey: ClaimKey("exp"))
        email = try? container.decodeIfPresent(String.self, forKey: ClaimKey("email"))
        if let flag = try? container.decodeIfPresent(Bool.self, forKey: ClaimKey("email_verified")) {
            emailVerified = flag
        } else if let text = try? container.decodeIfPresent(String.self, forKey: ClaimKey("email_verified")) {
            emailVerified = text == "true"
        }
        strings = ClaimKey.strings(in: container)
    }

    /// Unused: Micro never writes these.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ClaimKey.self)
        try container.encode(issuer, forKey: ClaimKey("iss"))
        try container.encode(audience.value, forKey: ClaimKey("aud"))
        try container.encode(issuedAt, forKey: ClaimKey("iat"))
        try container.encode(expires, forKey: ClaimKey("exp"))
    }
}
#endif
