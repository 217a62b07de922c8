import Foundation
import MicroCore

/// Users from a YAML file (credentials.yml), read with libyaml.
///
/// Two forms are accepted. A Sinatra sign-in app's single user, so that its file reads as is:
/// ```yaml
/// username: user
/// password_hash: $2a$10$38FTKkrtpylOYomyC03Mb..Efdzu1BFa7c7bZav1FKuYJUAzosx1u
/// ```
/// and a list, where a user may have a display name, roles and an email address:
/// ```yaml
/// users:
///   - username: ann
///     password_hash: $2b$12$...
///     name: Ann Smith
///     roles: [admin]
///     email: ann@example.com
/// ```
/// A missing file, bad YAML, a missing key, a username outside ``Username``'s rule (a space,
/// a control, the Kelvin sign), two spellings of one name (`Kate`, `kate`), or a malformed
/// hash is an error naming the file and line.
///
/// The file is read once; edit it while the app runs, then send the process `SIGHUP`
/// (`kill -HUP <pid>`; ``/MicroCore/App/run()`` reloads on it) or call ``reload()`` or ``/MicroCore/App/reload()``.
/// A broken edit is reported and the users read before stay in force.
public final class YamlUserStore: UserListing, Reloadable {
    /// The file's path.
    public let file: String
    private let loaded: Locked<Loaded>

    /// What one reading of the file gave.
    private struct Loaded {
        var users: [String: StoredUser]
        var stamps: [String: CredentialStamp]
        var typicalCost: Int?
        var slowestCost: Int?

        init(_ users: [String: StoredUser]) {
            self.users = users
            stamps = users.mapValues(CredentialStamp.init)
            typicalCost = YamlUserStore.typicalCost(of: users)
            slowestCost = users.values.compactMap { Password.cost(of: $0.passwordHash) }.max()
        }
    }

    /// Reads `file`. Throws a ``/MicroCore/ConfigurationError`` naming the file and line of any problem.
    public init(file: String) throws(ConfigurationError) {
        self.file = file
        loaded = Locked(Loaded(try Self.load(file)))
    }

    public func find(username: String) throws -> StoredUser? {
        guard let key = try? Username.enforce(username) else { return nil }
        return loaded.withLock { $0.users[key] }
    }

    /// Every user with their hash, as last read.
    var storedUsers: [StoredUser] { loaded.withLock { Array($0.users.values) } }

    public func allUsers() async throws -> [User] {
        loaded.withLock { $0.users.values.map(\.user) }.sorted { $0.username < $1.username }
    }

    public var typicalCost: Int? { loaded.withLock { $0.typicalCost } }

    public var slowestCost: Int? { loaded.withLock { $0.slowestCost } }

    public func isCurrent(_ stamp: CredentialStamp, username: String) -> Bool {
        loaded.withLock { $0.stamps[username] == stamp }
    }

    /// How many users the file holds.
    public var count: Int { loaded.withLock { $0.users.count } }

    /// When the file's hashes have mixed costs: the users whose hash has another cost than
    /// `cost`, and how to re-hash them; nil otherwise. Mixed costs make every refused sign-in
    /// as slow as the slowest cost, and a file cannot be re-hashed at sign-in as a table is.
    public func costWarning(configuredCost cost: Int) -> String? {
        let others = loaded.withLock { loaded -> [String] in
            let costs = Set(loaded.users.values.map { Password.cost(of: $0.passwordHash) })
            guard costs.count > 1 else { return [] }
            return loaded.users.values.filter { Password.cost(of: $0.passwordHash) != cost }.map(\.user.username).sorted()
        }
        guard !others.isEmpty else { return nil }
        return "\(file): the password hashes of \(others.joined(separator: ", ")) have another bcrypt cost than the configured \(cost): "
            + "make new ones with \(OperatorCommand.hashPassword(cost: cost)) and paste them in, then reload."
    }

    /// Reads the file again. On a problem, throws it (file, line, what is wrong) and keeps the
    /// users read before. Sessions of users it no longer holds, or whose hash changed, are over.
    ///
    /// ```swift
    /// do { try users.reload() } catch { logger.error("\(error)") }
    /// ```
    public func reload() throws(ConfigurationError) {
        let users = Loaded(try Self.load(file))
        loaded.withLock { $0 = users }
    }

    /// `users from credentials.yml (3 users)`, for the log after a reload.
    public var reloadSummary: String {
        let count = count
        return "users from \(file) (\(count) user\(count == 1 ? "" : "s"))"
    }

    static func load(_ file: String) throws(ConfigurationError) -> [String: StoredUser] {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConfigurationError("\(file): cannot read the users file (missing or unreadable).")
        }
        return try users(in: data, file: file)
    }

    /// The users `data` (the contents of `file`) holds.
    static func users(in data: Data, file: String) throws(ConfigurationError) -> [String: StoredUser] {
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError("\(file): is not UTF-8 text.")
        }
        let root: YamlNode?
        do {
            root = try YamlNode.parse(text)
        } catch {
            throw ConfigurationError("\(file):\(error.line): malformed YAML: \(error.message).")
        }
        guard let root, case .mapping = root else {
            throw ConfigurationError("\(file):\(root?.line ?? 1): expected `username:` and `password_hash:`, or a `users:` list.")
        }
        var entries: [YamlNode] = []
        if let list = root["users"] {
            guard case .sequence(let items, _) = list else {
                throw ConfigurationError("\(file):\(list.line): `users` must be a list of users (`- username: ...`).")
            }
            entries = items
        } else {
            entries = [root]
        }
        var users: [String: StoredUser] = [:]
        // Each address, in lowercase, with the user who has it.
        var emails: [String: String] = [:]
        for entry in entries {
            guard case .mapping = entry else {
                throw ConfigurationError("\(file):\(entry.line): a user must be a mapping with `username` and `password_hash`.")
            }
            guard let usernameNode = entry["username"], let username = usernameNode.text, !username.isEmpty else {
                throw ConfigurationError("\(file):\(entry.line): missing key `username`.")
            }
            do throws(UsernameError) {
                _ = try Username.enforce(username)
            } catch {
                throw ConfigurationError("\(file):\(usernameNode.line): \(error).")
            }
            guard let hashNode = entry["password_hash"], let hash = hashNode.text, !hash.isEmpty else {
                throw ConfigurationError("\(file):\(entry.line): user '\(username)' has no `password_hash`.")
            }
            guard Password.isValidHash(hash) else {
                throw ConfigurationError("\(file):\(hashNode.line): the password_hash of user '\(username)' is not a bcrypt hash ($2a$, $2b$ or $2y$, 60 characters). Make one with \(OperatorCommand.hashPassword()).")
            }
            let user = User(
                username: username, name: entry["name"]?.text, roles: try roles(of: entry, username, file), email: try email(of: entry, username, file))
            guard users[user.username] == nil else {
                throw ConfigurationError("\(file):\(entry.line): user '\(username)' appears twice (usernames are case-insensitive: `ÉMILE` and `émile` are one name).")
            }
            if let email = user.email?.lowercased() {
                if let owner = emails[email] {
                    throw ConfigurationError("\(file):\(entry.line): user '\(username)' has the email address of user '\(owner)'; two users cannot share one.")
                }
                emails[email] = user.username
            }
            users[user.username] = StoredUser(user: user, passwordHash: hash)
        }
        return users
    }

    /// The `email:` of a user entry, if any: an address `MailAddress` takes.
    private static func email(of entry: YamlNode, _ username: String, _ file: String) throws(ConfigurationError) -> String? {
        guard let node = entry["email"] else { return nil }
        guard let text = node.text else {
            throw ConfigurationError("\(file):\(node.line): the email of user '\(username)' must be an address, not a list or a mapping.")
        }
        do throws(MailAddressError) {
            return try User.checkedEmail(text)
        } catch {
            throw ConfigurationError("\(file):\(node.line): the email of user '\(username)': \(error).")
        }
    }

    /// The `roles:` of a user entry: a list of role names (`roles: [admin, editor]`), or none.
    private static func roles(of entry: YamlNode, _ username: String, _ file: String) throws(ConfigurationError) -> [String] {
        guard let node = entry["roles"] else { return [] }
        guard case .sequence(let items, _) = node else {
            throw ConfigurationError("\(file):\(node.line): the roles of user '\(username)' must be a list: `roles: [admin]`.")
        }
        var roles: [String] = []
        for item in items {
            guard let role = item.text else {
                throw ConfigurationError("\(file):\(item.line): a role of user '\(username)' must be a name, not a list or a mapping.")
            }
            if let problem = User.problem(withRole: role) {
                throw ConfigurationError("\(file):\(item.line): user '\(username)': \(problem).")
            }
            if !roles.contains(role) { roles.append(role) }
        }
        return roles
    }

    static func typicalCost(of users: [String: StoredUser]) -> Int? {
        let costs = users.values.compactMap { Password.cost(of: $0.passwordHash) }.sorted()
        return costs.isEmpty ? nil : costs[costs.count / 2]
    }
}
