#if OpenIdConnect
import Foundation

extension OpenIdProvider {
    /// Exchanges `code` at the token endpoint (with the PKCE verifier) for the ID token:
    /// `client_secret_basic`, or `client_secret_post` when discovery lists only that.
    func exchange(code: String, verifier: String, redirectUri: String, clientId: String, clientSecret: String, metadata: ProviderMetadata)
        async throws(OpenIdConnectError) -> String
    {
        var fields = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectUri), ("code_verifier", verifier)]
        var headers: [(String, String)] = []
        if metadata.usesSecretInBody {
            fields += [("client_id", clientId), ("client_secret", clientSecret)]
        } else {
            // RFC 6749 2.3.1: each part form-encoded before Base64.
            let pair = FormEncoding.encode(clientId) + ":" + FormEncoding.encode(clientSecret)
            headers.append(("Authorization", "Basic " + Data(pair.utf8).base64EncodedString()))
        }
        let answer = try await http.postForm(metadata.tokenEndpoint, fields: fields, headers: headers)
        struct TokenAnswer: Decodable {
            let idToken: String?
            let error: String?
            let errorDescription: String?
            enum CodingKeys: String, CodingKey {
                case idToken = "id_token"
                case error
                case errorDescription = "error_description"
            }
        }
        let decoded = try? JSONDecoder().decode(TokenAnswer.self, from: answer.body)
        if answer.status >= 500 {
            throw .providerUnavailable("the token endpoint answered \(answer.status)")
        }
        guard answer.status == 200 else {
            let detail = [decoded?.error, decoded?.errorDescription].compactMap { $0 }.joined(separator: ": ")
            throw .rejected("the token endpoint refused the code (\(answer.status)\(detail.isEmpty ? "" : ", " + String(detail.prefix(200))))")
        }
        guard let token = decoded?.idToken, !token.isEmpty else {
            throw .rejected("the token endpoint's answer holds no id_token")
        }
        return token
    }
}
#endif
