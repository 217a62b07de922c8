import MicroAuth
import MicroCore

/// A user in the users page's JSON: `{"username","name","roles","disabled","tokens"}`, the
/// tokens being the user's live API tokens (never their secrets).
struct ManagedUserJson: Encodable {
    var username: String
    var name: String
    var roles: [String]
    var disabled: Bool
    var tokens: [ApiTokenJson]

    init(_ listed: ManagedUser, tokens: [ApiToken] = []) {
        username = listed.user.username
        name = listed.user.name
        roles = listed.user.roles
        disabled = listed.isDisabled
        self.tokens = tokens.map { ApiTokenJson($0) }
    }
}
