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

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Reads the claims; a required one missing or of the wrong type fails the decoding.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        issuer = try container.decode(String.self, forKey: Key("iss"))
        subject = try container.decode(String.self, forKey: Key("sub"))
        audience = try container.decode(AudienceClaim.self, forKey: Key("aud"))
        authorizedParty = try container.decodeIfPresent(String.self, forKey: Key("azp"))
        expires = try container.decode(Double.self, forKey: Key("exp"))
        issuedAt = try container.decode(Double.self, forKey: Key("iat"))
        nonce = try container.decodeIfPresent(String.self, forKey: Key("nonce"))
        sessionId = try? container.decodeIfPresent(String.self, forKey: Key("sid"))
        email = try? container.decodeIfPresent(String.self, forKey: Key("email"))
        if let flag = try? container.decodeIfPresent(Bool.self, forKey: Key("email_verified")) {
            emailVerified = flag
        } else {
            emailVerified = (try? container.decodeIfPresent(String.self, forKey: Key("email_verified"))) == "true"
        }
        preferredUsername = try? container.decodeIfPresent(String.self, forKey: Key("preferred_username"))
        name = try? container.decodeIfPresent(String.self, forKey: Key("name"))
        var strings: [String: [String]] = [:]
        for key in container.allKeys {
            if let text = try? container.decode(String.self, forKey: key) {
                strings[key.stringValue] = [text]
            } else if let list = try? container.decode([String].self, forKey: key) {
                strings[key.stringValue] = list
            }
        }
        self.strings = strings
    }

    /// Writes the claims Micro reads (tests sign tokens of their own with it).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        let written: Set<String> = ["iss", "sub", "aud", "azp", "nonce", "sid", "email", "preferred_username", "name"]
        for (name, values) in strings where !written.contains(name) {
            if values.count == 1 { try container.encode(values[0], forKey: Key(name)) } else { try container.encode(values, forKey: Key(name)) }
        }
        try container.encode(issuer, forKey: Key("iss"))
        try container.encode(subject, forKey: Key("sub"))
        try container.encode(audience.value, forKey: Key("aud"))
        try container.encodeIfPresent(authorizedParty, forKey: Key("azp"))
        try container.encode(expires, forKey: Key("exp"))
        try container.encode(issuedAt, forKey: Key("iat"))
        try container.encodeIfPresent(nonce, forKey: Key("nonce"))
        try container.encodeIfPresent(sessionId, forKey: Key("sid"))
        try container.encodeIfPresent(email, forKey: Key("email"))
        try container.encode(emailVerified, forKey: Key("email_verified"))
        try container.encodeIfPresent(preferredUsername, forKey: Key("preferred_username"))
        try container.encodeIfPresent(name, forKey: Key("name"))
    }
}
#endif

#if OpenIdConnect
extension IdTokenClaims: ProviderJwtClaims {
    var expiresAt: Double? { expires }
}
#endif
