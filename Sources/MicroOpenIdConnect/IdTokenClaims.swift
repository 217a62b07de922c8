#if OpenIdConnect
import Foundation
import JWTKit

/// The claims of an ID token that Micro reads. Decoding checks nothing: `IdTokenVerifier`
/// checks the signature, the issuer, the audience, the times and the nonce before anything
/// else sees them.
public struct IdTokenClaims: JWTIdentityToken, Sendable {
    /// `iss`: who issued it.
    public var issuer: String
    /// `sub`: the person, at that issuer.
    public var subject: String
    /// `aud`: the clients it was issued for.
    public var audience: AudienceClaim
    /// `azp`: the client it was issued to, when it names one.
    public var authorizedParty: String?
    /// `exp`, seconds since 1970.
    public var expires: Double
    /// `iat`, seconds since 1970.
    public var issuedAt: Double
    /// `nonce`: the value the sign-in sent, echoed.
    public var nonce: String?
    /// `sid`: the provider's session this sign-in belongs to, which a back-channel logout
    /// names to end it.
    public var sessionId: String?
    /// `email`.
    public var email: String?
    /// `email_verified` (a boolean, or the string "true" some providers send).
    public var emailVerified: Bool
    /// `preferred_username`.
    public var preferredUsername: String?
    /// `name`.
    public var name: String?
    /// Every claim whose value is a string or a list of strings, by name (`groups`, `roles`):
    /// what a roles claim is read from.
    public var strings: [String: [String]]

    /// The person at the issuer.
    public var identity: ExternalIdentity { ExternalIdentity(issuer: issuer, subject: subject) }

    /// Nothing here: `IdTokenVerifier` checks the claims against its own clock and settings.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}

    /// Reads the claims; a required one missing or of the wrong type fails the decoding.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ClaimKey.self)
        issuer = try container.decode(String.self, forKey: ClaimKey("iss"))
        subject = try container.decode(String.self, forKey: ClaimKey("sub"))
        audience = try container.decode(AudienceClaim.self, forKey: ClaimKey("aud"))
        authorizedParty = try container.decodeIfPresent(String.self, forKey: ClaimKey("azp"))
        expires = try container.decode(Double.self, forKey: ClaimKey("exp"))
        issuedAt = try container.decode(Double.self, forKey: ClaimKey("iat"))
        nonce = try container.decodeIfPresent(String.self, forKey: ClaimKey("nonce"))
        sessionId = try? container.decodeIfPresent(String.self, forKey: ClaimKey("sid"))
        email = try? container.decodeIfPresent(String.self, forKey: ClaimKey("email"))
        if let flag = try? container.decodeIfPresent(Bool.self, forKey: ClaimKey("email_verified")) {
            emailVerified = flag
        } else {
            emailVerified = (try? container.decodeIfPresent(String.self, forKey: ClaimKey("email_verified"))) == "true"
        }
        preferredUsername = try? container.decodeIfPresent(String.self, forKey: ClaimKey("preferred_username"))
        name = try? container.decodeIfPresent(String.self, forKey: ClaimKey("name"))
        strings = ClaimKey.strings(in: container)
    }

    /// Writes the claims Micro reads (tests sign tokens of their own with it).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ClaimKey.self)
        let written: Set<String> = ["iss", "sub", "aud", "azp", "nonce", "sid", "email", "preferred_username", "name"]
        for (name, values) in strings where !written.contains(name) {
            if values.count == 1 { try container.encode(values[0], forKey: ClaimKey(name)) } else { try container.encode(values, forKey: ClaimKey(name)) }
        }
        try container.encode(issuer, forKey: ClaimKey("iss"))
        try container.encode(subject, forKey: ClaimKey("sub"))
        try container.encode(audience.value, forKey: ClaimKey("aud"))
        try container.encodeIfPresent(authorizedParty, forKey: ClaimKey("azp"))
        try container.encode(expires, forKey: ClaimKey("exp"))
        try container.encode(issuedAt, forKey: ClaimKey("iat"))
        try container.encodeIfPresent(nonce, forKey: ClaimKey("nonce"))
        try container.encodeIfPresent(sessionId, forKey: ClaimKey("sid"))
        try container.encodeIfPresent(email, forKey: ClaimKey("email"))
        try container.encode(emailVerified, forKey: ClaimKey("email_verified"))
        try container.encodeIfPresent(preferredUsername, forKey: ClaimKey("preferred_username"))
        try container.encodeIfPresent(name, forKey: ClaimKey("name"))
    }
}
#endif

#if OpenIdConnect
extension IdTokenClaims: ProviderJwtClaims {
    var expiresAt: Double? { expires }
}
#endif
