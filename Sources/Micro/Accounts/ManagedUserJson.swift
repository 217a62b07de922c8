/// A user in the users page's JSON: `{"username","name","roles","disabled"}`.
struct ManagedUserJson: Encodable {
    var username: String
    var name: String
    var roles: [String]
    var disabled: Bool

    init(_ listed: ManagedUser) {
        username = listed.user.username
        name = listed.user.name
        roles = listed.user.roles
        disabled = listed.isDisabled
    }
}
