import MicroCore

/// A user who can sign in.
public struct User: Codable, Sendable, Equatable {
    /// The name they sign in with, in its enforced form (``Username``: `ÉMILE` is `émile`).
    public var username: String
    /// The name pages show: the stored name, else the username capitalized ("user" -> "User").
    public var name: String
    /// What they may do beyond signing in (`admin`, say), as ``MicroCore/Request/authorize(role:)`` checks.
    public var roles: [String]
    /// Where mail to them goes (a set-up link, a password reset), when the store knows: an
    /// address `MailAddress` takes, as every store checks before keeping one.
    public var email: String?

    /// A user; `name` defaults to the username capitalized. The username is kept in its
    /// enforced form; a store refuses a name outside the rule before it makes a user.
    public init(username: String, name: String? = nil, roles: [String] = [], email: String? = nil) {
        self.username = Username.key(username)
        if let name, !name.isEmpty {
            self.name = name
        } else {
            self.name = self.username.prefix(1).uppercased() + self.username.dropFirst()
        }
        self.roles = roles
        self.email = email
    }

    /// Whether they have `role`.
    public func has(role: String) -> Bool { roles.contains(role) }

    private enum CodingKeys: String, CodingKey { case username, name, roles, email }

    /// Reads a user, also one a session kept from before users had roles (none).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        username = try container.decode(String.self, forKey: .username)
        name = try container.decode(String.self, forKey: .name)
        roles = try container.decodeIfPresent([String].self, forKey: .roles) ?? []
        email = try container.decodeIfPresent(String.self, forKey: .email)
    }

    /// Writes a user; no `roles` key when there are none, as before users had roles, and no
    /// `email` key without an address.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(username, forKey: .username)
        try container.encode(name, forKey: .name)
        if !roles.isEmpty { try container.encode(roles, forKey: .roles) }
        if let email { try container.encode(email, forKey: .email) }
    }

    /// The address of `text` as a store keeps it, nil for none (an empty text); throws a
    /// `MailAddressError` saying what is wrong with any other.
    public static func checkedEmail(_ text: String?) throws(MailAddressError) -> String? {
        guard let text, !text.trimmingSpaces().isEmpty else { return nil }
        return try MailAddress(text).text
    }

    /// The roles of a list such as a table's `roles` column holds ("admin editor" or
    /// "admin, editor"); nil when a name in it is not a role name.
    public static func roles(inList list: String) -> [String]? {
        let names = list.split { $0 == " " || $0 == "," }.map(String.init)
        guard names.allSatisfy({ problem(withRole: $0) == nil }) else { return nil }
        return names
    }

    /// Why `role` cannot be a role name; nil when it can: 1 to 64 lowercase ASCII letters,
    /// digits, `-` and `_`, so that a role reads the same in every file, table and check.
    public static func problem(withRole role: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        guard (1...64).contains(role.utf8.count), role.utf8.allSatisfy(allowed.contains) else {
            return "the role '\(role)' is not 1 to 64 lowercase letters, digits, '-' or '_'"
        }
        return nil
    }
}

extension User {
    /// The users recently read from sessions, by their JSON: a signed-in browser's every
    /// request reads its user, and decoding it with `JSONDecoder` each time showed in the
    /// profile of a rendered page.
    static let readFromSessions = BoundedCache<ExactString, User>(capacity: 1024, byteLimit: 1 << 20) { json, user in
        96 + json.text.utf8.count + user.username.utf8.count + user.name.utf8.count
    }
}
