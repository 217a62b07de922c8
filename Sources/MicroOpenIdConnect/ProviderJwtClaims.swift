#if OpenIdConnect
import JWTKit

/// The claims every JWT a provider signs for Micro carries, which ``JwtVerifier`` checks
/// before the caller reads the rest: who issued it, for whom, and when.
protocol ProviderJwtClaims: JWTIdentityToken {
    /// `iss`.
    var issuer: String { get }
    /// `aud`.
    var audience: AudienceClaim { get }
    /// `exp`, seconds since 1970; nil where the token may omit it (a logout token).
    var expiresAt: Double? { get }
    /// `iat`, seconds since 1970.
    var issuedAt: Double { get }
}
#endif
