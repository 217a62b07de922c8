import MicroAuth
import MicroCore

/// A user in the users page's JSON: `{"username","name","roles","email","disabled",
/// "passwordChangeDue","tokens"}`, the tokens being the user's live API tokens (never their
/// secrets); a user without an address has no `email` key.
struct ManagedUserJson: Encodable {
    var username: String
    var name: String
    var roles: [String]
    var email: String?
    var disabled: Bool
    var passwordChangeDue: Bool
    var tokens: [ApiTokenJson]

    init(_ listed: ManagedUser, tokens: [ApiToken] = []) {
        username = listed.user.username
        name = listed.user.name
        roles = listed.user.roles
        email = listed.user.email
        disabled = listed.isDisabled
        passwordChangeDue = listed.passwordChangeDue
        self.tokens = tokens.map { ApiTokenJson($0) }
    }
}
