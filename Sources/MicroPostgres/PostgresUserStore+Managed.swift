import Micro
import PostgresNIO

extension PostgresUserStore: ManagedUserStore {
    /// How the statements find a row by name (the unique index is on `lower(username)`).
    private static let match = "lower(username) = $1"

    /// Every user, read now, with whether they are disabled (no hashes leave the store).
    public func managedUsers() async throws -> [ManagedUser] {
        try await database.run("list the users") { client in
            var users: [ManagedUser] = []
            let rows = try await client.query(
                "SELECT username, name, roles, password_hash LIKE '!%' FROM users ORDER BY lower(username)", logger: SharedPostgresDatabase.quiet)
            for try await (username, name, roles, disabled) in rows.decode((String, String?, String?, Bool).self) {
                users.append(ManagedUser(user: User(username: username, name: name, roles: User.roles(inList: roles ?? "") ?? []), isDisabled: disabled))
            }
            return users
        }
    }

    public func addUser(username: String, name: String?, roles: [String], passwordHash: String) async throws -> Bool {
        let key = try checked(username, passwordHash: passwordHash, roles: roles)
        return try await change(key, ManagedUserSql.add(key, name: name, roles: roles, hash: passwordHash), guarded: false, doing: "add user '\(key)'")
    }

    public func setPasswordHash(of username: String, to passwordHash: String) async throws -> Bool {
        let key = try checked(username, passwordHash: passwordHash, roles: [])
        return try await change(key, ManagedUserSql.setHash(key, hash: passwordHash, match: Self.match), guarded: false, doing: "set a password")
    }

    public func setRoles(of username: String, to roles: [String], keepingOne adminRole: String) async throws -> UserChange {
        let key = try checked(username, passwordHash: nil, roles: roles)
        let statement = ManagedUserSql.setRoles(key, roles: roles, adminRole: adminRole, match: Self.match)
        let changed = try await change(key, statement, guarded: !roles.contains(adminRole), doing: "set roles")
        return try await outcome(key, changed: changed) { _ in false }
    }

    public func setDisabled(_ disabled: Bool, username: String, keepingOne adminRole: String) async throws -> UserChange {
        let key = Username.key(username)
        let statement = disabled
            ? ManagedUserSql.disable(key, adminRole: adminRole, match: Self.match) : ManagedUserSql.enable(key, match: Self.match)
        let changed = try await change(key, statement, guarded: disabled, doing: disabled ? "disable a user" : "enable a user")
        return try await outcome(key, changed: changed) { $0.isDisabled == disabled }
    }

    public func removeUser(username: String, keepingOne adminRole: String) async throws -> UserChange {
        let key = Username.key(username)
        let changed = try await change(key, ManagedUserSql.remove(key, adminRole: adminRole, match: Self.match), guarded: true, doing: "remove a user")
        return try await outcome(key, changed: changed) { _ in false }
    }

    private func checked(_ username: String, passwordHash: String?, roles: [String]) throws -> String {
        if let passwordHash, !Password.isValidHash(passwordHash) {
            throw UserStoreError("\(database.url): not a bcrypt hash for user '\(username)'.")
        }
        if let problem = roles.lazy.compactMap(User.problem(withRole:)).first {
            throw UserStoreError("\(database.url): user '\(username)': \(problem).")
        }
        do {
            return try Username.enforce(username)
        } catch {
            throw UserStoreError("\(database.url): \(error).")
        }
    }

    /// Runs `statement`; whether it changed a row. A `guarded` one (its condition reads other
    /// rows: the last admin) runs in a transaction after locking the table against other
    /// writers, so that two such changes at once run one after the other and the second sees
    /// the first: in PostgreSQL's default isolation each would otherwise read the table as it
    /// was before both. Readers (sign-ins) are not held up. The user's stamp is then what
    /// the table holds; every other instance learns it from the trigger's notification.
    private func change(_ key: String, _ statement: ManagedUserSql.Statement, guarded: Bool, doing action: String) async throws -> Bool {
        var binds = PostgresBindings()
        for value in statement.binds { if let value { binds.append(value) } else { binds.appendNull() } }
        let query = PostgresQuery(unsafeSQL: ManagedUserSql.postgres(statement.sql) + " RETURNING 1", binds: binds)
        let found = try await database.run(action) { client in
            try await client.withConnection { connection -> (Bool, StoredUser?) in
                let changed: Bool
                if guarded {
                    changed = try await connection.withTransaction(logger: SharedPostgresDatabase.quiet) { connection in
                        try await connection.query("LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE", logger: SharedPostgresDatabase.quiet)
                        return try await Self.returnsRow(connection.query(query, logger: SharedPostgresDatabase.quiet))
                    }
                } else {
                    changed = try await Self.returnsRow(connection.query(query, logger: SharedPostgresDatabase.quiet))
                }
                return (changed, try await Self.find(key, on: connection))
            }
        }
        summary.withLockedValue { $0.set(key, found.1) }
        return found.0
    }

    private static func returnsRow(_ rows: PostgresRowSequence) async throws -> Bool {
        var any = false
        for try await _ in rows { any = true }
        return any
    }

    private func outcome(_ key: String, changed: Bool, alreadySo: (StoredUser) -> Bool) async throws -> UserChange {
        if changed { return .done }
        guard let user = try await find(username: key, using: PasswordHasher.shared) else { return .noSuchUser }
        return alreadySo(user) ? .done : .lastAdmin
    }
}
