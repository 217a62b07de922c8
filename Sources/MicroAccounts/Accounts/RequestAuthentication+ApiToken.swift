import MicroAuth
import MicroCore

extension RequestAuthentication.Kind {
    /// An API token of the account pages (`Authorization: Bearer`).
    public static let apiToken = RequestAuthentication.Kind("api-token")
}

extension RequestAuthentication {
    /// Signed in by the API token `token`: its id and scopes.
    public static func apiToken(_ token: ApiToken) -> RequestAuthentication {
        RequestAuthentication(kind: .apiToken, credentialId: token.id, scopes: token.scopes)
    }
}
