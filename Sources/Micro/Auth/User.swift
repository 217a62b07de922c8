/// A user who can sign in.
public struct User: Codable, Sendable, Equatable {
    /// The name they sign in with, lowercased.
    public var username: String
    /// The name pages show: the stored name, else the username capitalized ("user" -> "User").
    public var name: String
    /// What they may do beyond signing in (`admin`, say), as ``Request/authorize(role:)`` checks.
    public var roles: [String]

    /// A user; `name` defaults to the username capitalized.
    public init(username: String, name: String? = nil, roles: [String] = []) {
        self.username = username.lowercased()
        if let name, !name.isEmpty {
            self.name = name
        } else {
            self.name = self.username.prefix(1).uppercased() + self.username.dropFirst()
        }
        self.roles = roles
    }

    /// Whether they have `role`.
    public func has(role: String) -> Bool { roles.contains(role) }

    private enum CodingKeys: String, CodingKey { case username, name, roles }

    /// Reads a user, also one a session kept from before users had roles (none).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        username = try container.decode(String.self, forKey: .username)
        name = try container.decode(String.self, forKey: .name)
        roles = try container.decodeIfPresent([String].self, forKey: .roles) ?? []
    }

    /// Writes a user; no `roles` key when there are none, as before users had roles.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(username, forKey: .username)
        try container.encode(name, forKey: .name)
        if !roles.isEmpty { try container.encode(roles, forKey: .roles) }
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
    /// request reads its user, and decoding it with `JSONDecoder` was about 7% of the cost of
    /// a rendered page over a socket.
    static let readFromSessions = BoundedCache<ExactString, User>(capacity: 1024, byteLimit: 1 << 20) { json, user in
        96 + json.text.utf8.count + user.username.utf8.count + user.name.utf8.count
    }
}

/// A user as a store keeps them: with their bcrypt password hash.
public struct StoredUser: Sendable, Equatable {
    /// The user.
    public var user: User
    /// The bcrypt hash of their password.
    public var passwordHash: String

    /// A user with their hash.
    public init(user: User, passwordHash: String) {
        self.user = user
        self.passwordHash = passwordHash
    }
}

/// Where users are looked up: ``YamlUserStore`` (credentials.yml) or ``SqliteUserStore``.
public protocol UserStore: Sendable {
    /// The user named `username` (case-insensitively); nil when there is none. Throws when the
    /// store cannot be read (the request then gets a 503).
    func find(username: String) throws -> StoredUser?
    /// ``find(username:)`` for a sign-in: by default the synchronous look-up on `hasher`'s
    /// threads (a store on disk may wait for a lock); a store over the network answers without
    /// holding a thread.
    func find(username: String, using hasher: PasswordHasher) async throws -> StoredUser?
    /// The bcrypt cost most of the store's hashes use; nil when unknown.
    var typicalCost: Int? { get }
    /// The highest bcrypt cost among the store's hashes: a refused sign-in takes as long as a
    /// check at this cost, so that the time tells no name from another. Nil when unknown.
    var slowestCost: Int? { get }
    /// Whether `stamp` is the current ``CredentialStamp`` of `username`: false once the user is
    /// removed or their hash changed, and the sessions they signed in with are then over.
    /// Called on every request of a signed-in session, so it answers from memory and never
    /// waits on I/O. True when the store cannot tell.
    func isCurrent(_ stamp: CredentialStamp, username: String) -> Bool
}

extension UserStore {
    public var typicalCost: Int? { nil }
    public var slowestCost: Int? { typicalCost }
    public func isCurrent(_ stamp: CredentialStamp, username: String) -> Bool { true }
    public func find(username: String, using hasher: PasswordHasher) async throws -> StoredUser? {
        try await hasher.run { try self.find(username: username) }
    }
}

/// A user store that can replace a user's hash: a sign-in re-hashes a password stored at
/// another cost than the configured one, as Django and Passlib do.
public protocol PasswordUpgradingUserStore: UserStore {
    /// Replaces the hash of `username`, only if it is still `old` (another change in between
    /// wins). Returns whether it did.
    func replacePasswordHash(of username: String, _ old: String, with new: String) throws -> Bool
    /// ``replacePasswordHash(of:_:with:)`` after a sign-in: by default the synchronous one; a
    /// store over the network answers without holding a thread.
    func replacePasswordHash(of username: String, _ old: String, with new: String, using hasher: PasswordHasher) async throws -> Bool
}

extension PasswordUpgradingUserStore {
    public func replacePasswordHash(of username: String, _ old: String, with new: String, using hasher: PasswordHasher) async throws -> Bool {
        try replacePasswordHash(of: username, old, with: new)
    }
}

/// A user store that cannot be read, or holds something wrong, with where.
public struct UserStoreError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, starting with the file (and line).
    public var description: String
    /// An error saying what is wrong, starting with where.
    public init(_ description: String) { self.description = description }
}
