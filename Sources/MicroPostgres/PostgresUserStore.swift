import Foundation
import Micro
import NIOConcurrencyHelpers
import PostgresNIO

/// Users from the `users` table of a ``SharedPostgresDatabase``, created when missing:
///
/// ```sql
/// CREATE TABLE users (username text NOT NULL, password_hash text NOT NULL, name text);
/// CREATE UNIQUE INDEX users_username_key ON users (lower(username));
/// ```
///
/// Names are kept in their enforced form (``Username``: `émile` for `ÉMILE`): opening the
/// store rewrites rows in another form, and stops naming the rows when two are one name or
/// one is outside the rule.
///
/// An admin manages the users from a page through `ManagedUserStore`; a disabled user's hash
/// is kept behind a `!` (`ManagedUserSql`), and a table made before that works as it is.
///
/// A sign-in reads the user from the table, so a user added or changed takes effect at once.
/// Signed-in requests are checked against each user's ``CredentialStamp`` kept in memory,
/// which a trigger's notification updates on every instance when a row changes, whoever
/// changed it (another instance, `add-user`, `remove-user`, plain SQL), and which is read
/// afresh whenever the listening connection (re)connects.
public final class PostgresUserStore: PasswordUpgradingUserStore, UserListing {
    /// The database.
    public let database: SharedPostgresDatabase
    let summary = NIOLockedValueBox(Summary())

    struct Summary {
        var cost: Int?
        var slowestCost: Int?
        var stamps: [String: CredentialStamp] = [:]
        var costs: [String: Int] = [:]

        /// What the table now holds for the lowercased `name` (nil: no such user). The costs
        /// are summed up again when the user's changed, so that a refusal keeps costing what
        /// a check at the slowest cost does whoever added or changed a user, and however.
        mutating func set(_ name: String, _ user: StoredUser?) {
            stamps[name] = CredentialStamp.current(of: user)
            let userCost = user.flatMap { Password.cost(of: $0.passwordHash) }
            guard costs[name] != userCost else { return }
            costs[name] = userCost
            let sorted = costs.values.sorted()
            cost = sorted.isEmpty ? nil : sorted[sorted.count / 2]
            slowestCost = sorted.last
        }
    }

    /// The store over `database`'s `users` table. Every stored hash is checked: a malformed one
    /// is an error naming the row (``ConfigurationError``), as is a database that cannot be read.
    public init(_ database: SharedPostgresDatabase) async throws(ConfigurationError) {
        self.database = database
        let summary = summary
        let url = database.url
        database.subscribe(SharedPostgresDatabase.Subscriber(
            prefix: "u",
            notified: { name, connection in
                if name == "*" {
                    let users = try await Self.readAll(connection, url: url, strict: false)
                    summary.withLockedValue { $0 = Self.summary(users) }
                    return
                }
                let found = try await Self.find(String(name), on: connection)
                summary.withLockedValue { $0.set(String(name), found) }
            },
            reload: { connection in
                let users = try await Self.readAll(connection, url: url, strict: false)
                summary.withLockedValue { $0 = Self.summary(users) }
            }))
        do {
            let users = try await database.run("read the users table") { client in
                try await client.withConnection { connection in
                    try await Self.enforceUsernames(connection, url: url)
                    return try await Self.readAll(connection, url: url, strict: true)
                }
            }
            summary.withLockedValue { $0 = Self.summary(users) }
        } catch {
            throw ConfigurationError((error as? UserStoreError)?.description ?? "\(url): cannot read the users table: \(error)")
        }
    }

    /// The user, or nil. Waits on the database (bounded by its ``SharedPostgresDatabase/queryTimeout``):
    /// call it off the event loops. Sign-in uses ``find(username:using:)``, which holds no thread.
    public func find(username: String) throws -> StoredUser? {
        let result = NIOLockedValueBox<Result<StoredUser?, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do { let found = try await self.lookUp(username); result.withLockedValue { $0 = .success(found) } }
            catch { result.withLockedValue { $0 = .failure(error) } }
            done.signal()
        }
        done.wait()
        return try result.withLockedValue { $0! }.get()
    }

    /// The user, or nil, read from the table now.
    public func find(username: String, using hasher: PasswordHasher) async throws -> StoredUser? {
        try await lookUp(username)
    }

    private func lookUp(_ username: String) async throws -> StoredUser? {
        guard let name = try? Username.enforce(username) else { return nil }
        let url = database.url
        let found = try await database.run("read the users table") { client in
            try await client.withConnection { try await Self.find(name, on: $0, url: url) }
        }
        // What the table says now is what the user's next request is checked against.
        summary.withLockedValue { $0.set(name, found) }
        return found
    }

    /// The median cost of the table's hashes, kept current by the database's notifications.
    public var typicalCost: Int? { summary.withLockedValue { $0.cost } }

    /// The highest cost of the table's hashes, kept current by the database's notifications.
    public var slowestCost: Int? { summary.withLockedValue { $0.slowestCost } }

    /// From memory, kept current by the database's notifications.
    public func isCurrent(_ stamp: CredentialStamp, username: String) -> Bool {
        summary.withLockedValue { $0.stamps[username] == stamp }
    }

    public func replacePasswordHash(of username: String, _ old: String, with new: String) throws -> Bool {
        let result = NIOLockedValueBox<Result<Bool, any Error>>(.success(false))
        let done = DispatchSemaphore(value: 0)
        Task {
            do { let replaced = try await self.replace(username, old, new); result.withLockedValue { $0 = .success(replaced) } }
            catch { result.withLockedValue { $0 = .failure(error) } }
            done.signal()
        }
        done.wait()
        return try result.withLockedValue { $0 }.get()
    }

    public func replacePasswordHash(of username: String, _ old: String, with new: String, using hasher: PasswordHasher) async throws -> Bool {
        try await replace(username, old, new)
    }

    private func replace(_ username: String, _ old: String, _ new: String) async throws -> Bool {
        guard Password.isValidHash(new) else { throw UserStoreError("\(database.url): not a bcrypt hash for user '\(username)'.") }
        let key = Username.key(username)
        let replaced = try await database.run("re-hash a password") { client in
            let rows = try await client.query(
                "UPDATE users SET password_hash = \(new) WHERE lower(username) = \(key) AND password_hash = \(old) RETURNING roles",
                logger: SharedPostgresDatabase.quiet)
            var roles: [String]?
            for try await list in rows.decode(String?.self) { roles = User.roles(inList: list ?? "") ?? [] }
            return roles
        }
        if let replaced {
            summary.withLockedValue { $0.set(key, StoredUser(user: User(username: key, roles: replaced), passwordHash: new)) }
        }
        return replaced != nil
    }

    /// Adds the user, or changes their hash, name and roles when they exist.
    public func save(username: String, passwordHash: String, name: String?, roles: [String] = []) async throws {
        if let problem = roles.lazy.compactMap(User.problem(withRole:)).first {
            throw UserStoreError("\(database.url): user '\(username)': \(problem).")
        }
        let roleList: String? = roles.isEmpty ? nil : roles.joined(separator: " ")
        guard Password.isValidHash(passwordHash) else {
            throw UserStoreError("\(database.url): not a bcrypt hash for user '\(username)'.")
        }
        let key: String
        do throws(UsernameError) {
            key = try Username.enforce(username)
        } catch {
            throw UserStoreError("\(database.url): \(error).")
        }
        try await database.run("save user '\(key)'") { client in
            _ = try await client.query("""
                INSERT INTO users (username, password_hash, name, roles) VALUES (\(key), \(passwordHash), \(name), \(roleList))
                ON CONFLICT (lower(username)) DO UPDATE SET password_hash = excluded.password_hash, name = excluded.name, roles = excluded.roles
                """, logger: SharedPostgresDatabase.quiet)
        }
        summary.withLockedValue { $0.set(key, StoredUser(user: User(username: key, name: name, roles: roles), passwordHash: passwordHash)) }
    }

    /// Removes the user; whether there was one. Their sessions end on every instance.
    public func remove(username: String) async throws -> Bool {
        let key = Username.key(username)
        let removed = try await database.run("remove user '\(key)'") { client in
            let rows = try await client.query("DELETE FROM users WHERE lower(username) = \(key) RETURNING 1", logger: SharedPostgresDatabase.quiet)
            var count = 0
            for try await _ in rows { count += 1 }
            return count > 0
        }
        summary.withLockedValue { $0.set(key, nil) }
        return removed
    }

    /// Every user, read now (no hashes).
    public func allUsers() async throws -> [User] {
        try await database.run("list the users") { client in
            var users: [User] = []
            let rows = try await client.query("SELECT username, name, roles FROM users ORDER BY lower(username)", logger: SharedPostgresDatabase.quiet)
            for try await (username, name, roles) in rows.decode((String, String?, String?).self) {
                users.append(User(username: username, name: name, roles: User.roles(inList: roles ?? "") ?? []))
            }
            return users
        }
    }

    /// How many users the table holds.
    public func count() async throws -> Int {
        try await database.run("count the users") { client in
            for try await count in try await client.query("SELECT count(*) FROM users", logger: SharedPostgresDatabase.quiet).decode(Int.self) {
                return count
            }
            return 0
        }
    }

    static func find(_ name: String, on connection: PostgresConnection, url: PostgresUrl? = nil) async throws -> StoredUser? {
        let rows = try await connection.query(
            "SELECT ctid::text, username, password_hash, name, roles FROM users WHERE lower(username) = \(name)", logger: SharedPostgresDatabase.quiet)
        for try await (row, username, hash, displayName, roleList) in rows.decode((String, String, String, String?, String?).self) {
            guard StoredUser.isValidStoredHash(hash), let roles = User.roles(inList: roleList ?? "") else {
                guard let url else { return nil }
                throw UserStoreError(malformed(url, row: row, username: username))
            }
            return StoredUser(user: User(username: username, name: displayName, roles: roles), passwordHash: hash)
        }
        return nil
    }

    /// Every user; with `strict`, a malformed hash is an error naming the row, else the user
    /// is left out (they cannot sign in: ``find(username:)`` reports the row).
    private static func readAll(_ connection: PostgresConnection, url: PostgresUrl, strict: Bool) async throws -> [StoredUser] {
        let rows = try await connection.query("SELECT ctid::text, username, password_hash, name, roles FROM users", logger: SharedPostgresDatabase.quiet)
        var users: [StoredUser] = []
        for try await (row, username, hash, name, roleList) in rows.decode((String, String, String, String?, String?).self) {
            // A row added by SQL since start-up in a spelling a look-up cannot find (fullwidth
            // `ｋａｔｅ` beside `kate`; the next start refuses it) gives no user: its stamp would
            // displace that of the row the look-up finds.
            guard Array(username.lowercased().utf8) == Array(Username.key(username).utf8) else { continue }
            guard StoredUser.isValidStoredHash(hash), let roles = User.roles(inList: roleList ?? "") else {
                if strict { throw UserStoreError(malformed(url, row: row, username: username)) }
                continue
            }
            users.append(StoredUser(user: User(username: username, name: name, roles: roles), passwordHash: hash))
        }
        return users
    }

    /// Rewrites the rows whose name is not in its enforced form; throws, changing nothing,
    /// when two rows are one name or a name is outside the rule.
    private static func enforceUsernames(_ connection: PostgresConnection, url: PostgresUrl) async throws {
        var rows: [UsernameMigration.Row] = []
        let found = try await connection.query("SELECT ctid::text, username FROM users", logger: SharedPostgresDatabase.quiet)
        for try await (row, username) in found.decode((String, String).self) {
            rows.append(UsernameMigration.Row(id: row, username: username))
        }
        let renames: [UsernameMigration.Row]
        do throws(UsernameMigration.Problem) {
            renames = try UsernameMigration.renames(of: rows)
        } catch {
            throw UserStoreError("\(url): \(error.description).")
        }
        // Each rename is kept only if the row still holds the name read: another instance
        // starting at once may have renamed it first.
        for rename in renames {
            let old = rows.first { $0.id == rename.id }?.username ?? ""
            _ = try await connection.query(
                "UPDATE users SET username = \(rename.username) WHERE ctid = \(rename.id)::tid AND username = \(old)",
                logger: SharedPostgresDatabase.quiet)
        }
    }

    private static func malformed(_ url: PostgresUrl, row: String, username: String) -> String {
        "\(url): users row \(row) (user '\(username)'): password_hash is not a bcrypt hash ($2a$, $2b$ or $2y$), or roles holds a name that is not lowercase letters, digits, '-' or '_'."
    }

    private static func summary(_ users: [StoredUser]) -> Summary {
        let costs = users.compactMap { Password.cost(of: $0.passwordHash) }.sorted()
        var summary = Summary(cost: costs.isEmpty ? nil : costs[costs.count / 2], slowestCost: costs.last)
        for user in users {
            let name = user.user.username
            summary.stamps[name] = CredentialStamp.current(of: user)
            summary.costs[name] = Password.cost(of: user.passwordHash)
        }
        return summary
    }
}
