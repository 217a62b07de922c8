import MicroAuth
import MicroCore

/// A token as the token pages answer it in JSON; `token` only in the answer that made it.
struct ApiTokenJson: Encodable {
    var id: String
    var name: String
    var createdAt: String
    var lastUsedAt: String?
    var expiresAt: String
    var scopes: [String]
    var token: String?

    init(_ token: ApiToken, secret: String? = nil) {
        id = token.id
        name = token.name
        createdAt = AccountTime.iso(token.createdAt)
        lastUsedAt = token.lastUsedAt == 0 ? nil : AccountTime.iso(token.lastUsedAt)
        expiresAt = AccountTime.iso(token.expiresAt)
        scopes = token.scopes
        self.token = secret
    }
}
