#if OpenIdConnect
import Foundation
import JWTKit
import MicroCore

/// Checks an ID token as OpenID Connect Core 3.1.3.7 asks: what every provider's JWT passes
/// (``JwtVerifier``: the signature by the key named by `kid`, `iss`, `aud`, `exp`, `iat`),
/// then `azp`, the `nonce` the sign-in sent, and `sub`.
struct IdTokenVerifier: Sendable {
    let jwt: JwtVerifier
    let clientId: String

    init(issuer: String, clientId: String, trustedAudiences: Set<String>, leeway: TimeInterval) {
        jwt = JwtVerifier(name: "the ID token", issuer: issuer, audience: clientId, trustedAudiences: trustedAudiences, leeway: leeway)
        self.clientId = clientId
    }

    func verify(_ token: String, nonce: String, provider: OpenIdProvider, metadata: ProviderMetadata, now: Date)
        async throws(OpenIdConnectError) -> IdTokenClaims
    {
        let listed = Set(metadata.idTokenSigningAlgValuesSupported ?? ["RS256"])
        let claims = try await jwt.verify(token, as: IdTokenClaims.self, listed: listed, now: now) { kid throws(OpenIdConnectError) in
            try await provider.key(named: kid, metadata: metadata)
        }
        if claims.audience.value.count > 1 || claims.authorizedParty != nil {
            guard claims.authorizedParty == clientId else {
                throw .rejected("the ID token's azp is '\(LogText.escape(claims.authorizedParty ?? "(none)", limit: 256))', not the client id")
            }
        }
        guard let sent = claims.nonce, ConstantTime.equal(sent, nonce) else { throw .rejected("the ID token's nonce is not the one sent") }
        guard !claims.subject.isEmpty, claims.subject.utf8.count <= 255 else { throw .rejected("the ID token's sub is empty or longer than 255 bytes") }
        return claims
    }
}
#endif
