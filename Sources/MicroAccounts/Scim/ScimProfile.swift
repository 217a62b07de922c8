import MicroAuth

/// What SCIM keeps of a user beside the users table, so that a provider reads back what it
/// wrote: `displayName` as given (or none), `name`'s parts, and every address with its type
/// and primary flag. The table keeps what pages and mail use (the name shown, one address);
/// the profile records which it gave the table, so that a change made elsewhere (the users
/// page, a command) wins over it rather than being hidden behind an older SCIM value.
struct ScimProfile: Sendable, Equatable, Codable {
    var displayName: String?
    var name: ScimName?
    var emails: [ScimEmail]
    /// The name and the address the users table was given along with the rest.
    var tableName: String?
    var tableEmail: String?

    /// Whether the table still shows the name it was given with this profile.
    func holdsName(of user: User) -> Bool {
        User(username: user.username, name: tableName).name == user.name
    }

    /// Whether the table still has the address it was given with this profile.
    func holdsEmail(of user: User) -> Bool {
        tableEmail == user.email
    }
}
