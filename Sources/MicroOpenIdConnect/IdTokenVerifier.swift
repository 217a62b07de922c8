#if OpenIdConnect
import Foundation
import JWTKit
import MicroCore

/// Checks an ID token as OpenID Connect Core 3.1.3.7 asks: the signature by the provider's
/// key named by `kid` (RS256 or ES256, among the algorithms discovery lists), `iss`, `aud`
/// and `azp`, `exp` and `iat` with a leeway, and the `nonce` the sign-in sent.
///
/// jwt-kit checks the signature and the audience. It checks neither `iss` nor `nonce`, and
/// for a `kid` it does not hold it falls back to a default key, so the key is chosen here:
/// each token is checked against a key collection holding that one key. A `jku`, `x5u` or
/// `jwk` header is refused, never followed.
struct IdTokenVerifier: Sendable {
    /// The algorithms Micro accepts at all.
    static let supportedAlgorithms: Set<String> = ["RS256", "ES256"]
    /// The longest token read.
    static let maximumLength = 64 * 1024

    let issuer: String
    let clientId: String
    let trustedAudiences: Set<String>
    let leeway: TimeInterval

    func verify(_ token: String, nonce: String, provider: OpenIdProvider, metadata: ProviderMetadata, now: Date)
        async throws(OpenIdConnectError) -> IdTokenClaims
    {
        guard token.utf8.count <= Self.maximumLength else { throw .rejected("the ID token is longer than \(Self.maximumLength) bytes") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Self.base64UrlDecode(parts[0]),
            let header = try? JSONDecoder().decode(JWTHeader.self, from: headerData)
        else { throw .rejected("the ID token is not a signed JWT") }
        for field in ["jku", "x5u", "jwk"] where header.fields[field] != nil {
            throw .rejected("the ID token's header carries '\(field)', which Micro never follows")
        }
        let alg = header.alg ?? ""
        let listed = Set(metadata.idTokenSigningAlgValuesSupported ?? ["RS256"])
        guard Self.supportedAlgorithms.contains(alg), listed.contains(alg) else {
            throw .rejected("the ID token is signed with '\(alg)'; accepted: \(Self.supportedAlgorithms.intersection(listed).sorted().joined(separator: ", "))")
        }
        guard var key = try await provider.key(named: header.kid, metadata: metadata) else {
            throw .rejected("no key '\(header.kid ?? "(none)")' in the provider's key set")
        }
        try Self.check(key, fits: alg)
        key.keyIdentifier = JWKIdentifier(string: "the-key")
        let claims: IdTokenClaims
        do {
            let keys = JWTKeyCollection()
            try await keys.add(jwk: key, isDefault: true)
            claims = try await keys.verify(token, as: IdTokenClaims.self, expectedAudience: clientId, trustedAdditionalAudiences: trustedAudiences)
        } catch {
            throw .rejected("the ID token failed jwt-kit's checks (signature or audience): \(error)")
        }
        guard claims.issuer == issuer else { throw .rejected("the ID token's issuer is '\(claims.issuer)', not '\(issuer)'") }
        if claims.audience.value.count > 1 || claims.authorizedParty != nil {
            guard claims.authorizedParty == clientId else {
                throw .rejected("the ID token's azp is '\(claims.authorizedParty ?? "(none)")', not the client id")
            }
        }
        let time = now.timeIntervalSince1970
        guard claims.expires + leeway > time else { throw .rejected("the ID token expired at \(claims.expires)") }
        guard claims.issuedAt - leeway <= time else { throw .rejected("the ID token was issued in the future (\(claims.issuedAt))") }
        guard let sent = claims.nonce, ConstantTime.equal(sent, nonce) else { throw .rejected("the ID token's nonce is not the one sent") }
        guard !claims.subject.isEmpty, claims.subject.utf8.count <= 255 else { throw .rejected("the ID token's sub is empty or longer than 255 bytes") }
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

    static func base64UrlDecode(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
#endif
