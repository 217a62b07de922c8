#if OpenIdConnect
import Foundation
import JWTKit
import MicroCore

/// The checks every JWT a provider signs passes before Micro reads it (an ID token, a
/// logout token): its size, the signature by the provider's key named by `kid` (RS256 or
/// ES256, among the algorithms the provider lists), `iss`, `aud`, `exp` and `iat` with a
/// leeway. Callers add the checks of their kind of token.
///
/// jwt-kit checks the signature and the audience. It checks neither `iss` nor the times as
/// these tokens need them, and for a `kid` it does not hold it falls back to a default key,
/// so the key is chosen here: each token is checked against a key collection holding that
/// one key. A `jku`, `x5u` or `jwk` header is refused, never followed.
struct JwtVerifier: Sendable {
    /// The algorithms Micro accepts at all.
    static let supportedAlgorithms: Set<String> = ["RS256", "ES256"]
    /// The longest token read.
    static let maximumLength = 64 * 1024

    /// The token's name in refusals: "the ID token".
    let name: String
    let issuer: String
    /// The audience the token must name (the client id).
    let audience: String
    /// Audiences it may name besides.
    let trustedAudiences: Set<String>
    let leeway: TimeInterval
    /// The longest time since `iat` a token is accepted for; nil: any, while `exp` holds.
    var maximumAge: TimeInterval?

    /// The token's claims once every check passed; `.rejected` naming the first that failed.
    /// `listed` are the algorithms the provider announces; `key` finds the key named by `kid`.
    func verify<Claims: ProviderJwtClaims>(
        _ token: String, as type: Claims.Type, listed: Set<String>, now: Date,
        key: (String?) async throws(OpenIdConnectError) -> JWK?
    ) async throws(OpenIdConnectError) -> Claims {
        guard token.utf8.count <= Self.maximumLength else { throw .rejected("\(name) is longer than \(Self.maximumLength) bytes") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64Url.decode(String(parts[0])),
            let header = try? JSONDecoder().decode(JWTHeader.self, from: Data(headerBytes))
        else { throw .rejected("\(name) is not a signed JWT") }
        for field in ["jku", "x5u", "jwk"] where header.fields[field] != nil {
            throw .rejected("\(name)'s header carries '\(field)', which Micro never follows")
        }
        let alg = header.alg ?? ""
        guard Self.supportedAlgorithms.contains(alg), listed.contains(alg) else {
            throw .rejected("\(name) is signed with '\(LogText.escape(alg, limit: 20))'; accepted: \(Self.supportedAlgorithms.intersection(listed).sorted().joined(separator: ", "))")
        }
        guard var found = try await key(header.kid) else {
            throw .rejected("no key '\(LogText.escape(header.kid ?? "(none)", limit: 100))' in the provider's key set")
        }
        try Self.check(found, fits: alg)
        found.keyIdentifier = JWKIdentifier(string: "the-key")
        let claims: Claims
        do {
            let keys = JWTKeyCollection()
            try await keys.add(jwk: found, isDefault: true)
            claims = try await keys.verify(token, as: Claims.self, expectedAudience: audience, trustedAdditionalAudiences: trustedAudiences)
        } catch {
            throw .rejected("\(name) failed jwt-kit's checks (signature, audience or claims): \(error)")
        }
        guard claims.issuer == issuer else { throw .rejected("\(name)'s issuer is '\(LogText.escape(claims.issuer, limit: 256))', not '\(issuer)'") }
        let time = now.timeIntervalSince1970
        if let expires = claims.expiresAt {
            guard expires + leeway > time else { throw .rejected("\(name) expired at \(expires)") }
        }
        guard claims.issuedAt - leeway <= time else { throw .rejected("\(name) was issued in the future (\(claims.issuedAt))") }
        if let maximumAge {
            guard claims.issuedAt + maximumAge + leeway >= time else { throw .rejected("\(name) was issued at \(claims.issuedAt), too long ago") }
        }
        return claims
    }

    /// Refuses a key of another type than `alg` needs, or one the set marks for another
    /// algorithm.
    private static func check(_ key: JWK, fits alg: String) throws(OpenIdConnectError) {
        if let declared = key.algorithm, declared.rawValue != alg {
            throw .rejected("the key is for \(declared.rawValue), the token says \(alg)")
        }
        switch alg {
        case "RS256":
            guard key.keyType == .rsa else { throw .rejected("an RS256 token names a key that is not RSA") }
        case "ES256":
            guard key.keyType == .ecdsa, key.curve == .ecdsa(.p256) else { throw .rejected("an ES256 token names a key that is not P-256") }
        default:
            throw .rejected("unsupported algorithm \(alg)")
        }
    }
}
#endif
