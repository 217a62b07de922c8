#if OpenIdConnect
import Foundation
import JWTKit

/// The claims of a logout token (OpenID Connect Back-Channel Logout 1.0, section 2.4) that
/// Micro reads. Decoding checks only their types; ``BackChannelLogout`` checks the rest.
struct LogoutTokenClaims: ProviderJwtClaims, Sendable {
    /// The event a logout token must hold in `events`.
    static let event = "http://schemas.openid.net/event/backchannel-logout"

    var issuer: String
    var audience: AudienceClaim
    var issuedAt: Double
    var expiresAt: Double?
    /// `jti`: the token's own identity, acted on once.
    var tokenId: String?
    /// The event names in `events`.
    var events: Set<String>
    /// `sub`: the person, at the issuer.
    var subject: String?
    /// `sid`: the provider's session.
    var sessionId: String?
    /// Whether a `nonce` is present: a logout token must not carry one (so that an ID token
    /// cannot be passed off as one).
    var hasNonce: Bool

    /// Nothing here: ``JwtVerifier`` and ``BackChannelLogout`` check the claims against their
    /// own clock and settings.
    func verify(using algorithm: some JWTAlgorithm) async throws {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ClaimKey.self)
        issuer = try container.decode(String.self, forKey: ClaimKey("iss"))
        audience = try container.decode(AudienceClaim.self, forKey: ClaimKey("aud"))
        issuedAt = try container.decode(Double.self, forKey: ClaimKey("iat"))
        expiresAt = try container.decodeIfPresent(Double.self, forKey: ClaimKey("exp"))
        tokenId = try container.decodeIfPresent(String.self, forKey: ClaimKey("jti"))
        subject = try container.decodeIfPresent(String.self, forKey: ClaimKey("sub"))
        sessionId = try container.decodeIfPresent(String.self, forKey: ClaimKey("sid"))
        hasNonce = container.contains(ClaimKey("nonce"))
        if container.contains(ClaimKey("events")) {
            let events = try container.nestedContainer(keyedBy: ClaimKey.self, forKey: ClaimKey("events"))
            self.events = Set(events.allKeys.prefix(16).map(\.stringValue))
        } else {
            events = []
        }
    }

    /// Unused: Micro never writes logout tokens.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ClaimKey.self)
        try container.encode(issuer, forKey: ClaimKey("iss"))
        try container.encode(audience.value, forKey: ClaimKey("aud"))
        try container.encode(issuedAt, forKey: ClaimKey("iat"))
    }
}
#endif
