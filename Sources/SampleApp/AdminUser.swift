import Micro

/// What the admin page shows of a user: never their hash.
struct AdminUser: Encodable {
    let username: String
    let name: String
    let roles: [String]

    init(_ user: User) {
        username = user.username
        name = user.name
        roles = user.roles
    }

    var templateValues: [String: String] {
        ["username": username, "name": name, "roles": roles.isEmpty ? "none" : roles.joined(separator: ", ")]
    }
}
