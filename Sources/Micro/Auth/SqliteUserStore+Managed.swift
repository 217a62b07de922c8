extension SqliteUserStore: ManagedUserStore {
    /// How the statements find a row by name.
    private static let match = "username = ?1 COLLATE NOCASE"

    public func managedUsers() async throws -> [ManagedUser] {
        try withConnection { connection throws(SqliteFailure) in
            try connection.checkUsers(skippingMalformed: true)
        }.map { ManagedUser(user: $0.user, isDisabled: $0.isDisabled) }.sorted { $0.user.username < $1.user.username }
    }

    public func addUser(username: String, name: String?, roles: [String], passwordHash: String) async throws -> Bool {
        let key = try checked(username, passwordHash: passwordHash, roles: roles)
        return try change(key, ManagedUserSql.add(key, name: name, roles: roles, hash: passwordHash), doing: "add user '\(key)'") > 0
    }

    public func setPasswordHash(of username: String, to passwordHash: String) async throws -> Bool {
        let key = try checked(username, passwordHash: passwordHash, roles: [])
        return try change(key, ManagedUserSql.setHash(key, hash: passwordHash, match: Self.match), doing: "set the password of user '\(key)'") > 0
    }

    public func setRoles(of username: String, to roles: [String], keepingOne adminRole: String) async throws -> UserChange {
        let key = try checked(username, passwordHash: nil, roles: roles)
        let statement = ManagedUserSql.setRoles(key, roles: roles, adminRole: adminRole, match: Self.match)
        return try outcome(key, changed: change(key, statement, doing: "set the roles of user '\(key)'"), alreadySo: { _ in false })
    }

    public func setDisabled(_ disabled: Bool, username: String, keepingOne adminRole: String) async throws -> UserChange {
        let key = Username.key(username)
        let statement = disabled
            ? ManagedUserSql.disable(key, adminRole: adminRole, match: Self.match) : ManagedUserSql.enable(key, match: Self.match)
        let changed = try change(key, statement, doing: disabled ? "disable user '\(key)'" : "enable user '\(key)'")
        return try outcome(key, changed: changed, alreadySo: { $0.isDisabled == disabled })
    }

    public func removeUser(username: String, keepingOne adminRole: String) async throws -> UserChange {
        let key = Username.key(username)
        let changed = try change(key, ManagedUserSql.remove(key, adminRole: adminRole, match: Self.match), doing: "remove user '\(key)'")
        return try outcome(key, changed: changed, alreadySo: { _ in false })
    }

    /// The enforced name, once the hash and roles are ones a store may hold.
    private func checked(_ username: String, passwordHash: String?, roles: [String]) throws(UserStoreError) -> String {
        if let passwordHash, !Password.isValidHash(passwordHash) {
            throw UserStoreError("\(path): not a bcrypt hash for user '\(username)'.")
        }
        if let problem = roles.lazy.compactMap(User.problem(withRole:)).first {
            throw UserStoreError("\(path): user '\(username)': \(problem).")
        }
        do throws(UsernameError) {
            return try Username.enforce(username)
        } catch {
            throw UserStoreError("\(path): \(error).")
        }
    }

    /// Runs `statement`; the user's stamp is then what the table holds, read while the
    /// connection is held, so that no other change comes between.
    private func change(_ key: String, _ statement: ManagedUserSql.Statement, doing action: String) throws(UserStoreError) -> Int {
        try withConnection { connection throws(SqliteFailure) in
            let changed = try connection.run(statement, doing: action)
            let found = try connection.findUser(key)
            summary.withLock { summary in
                summary.stamps[key] = CredentialStamp.current(of: found)
                if let cost = found.flatMap({ Password.cost(of: $0.enabledHash) }) { summary.slowestCost = max(summary.slowestCost ?? cost, cost) }
            }
            return changed
        }
    }

    /// What a guarded change that changed `changed` rows came to: none, because there is no
    /// such user, because the user already was so, or because the guard refused it.
    private func outcome(_ key: String, changed: Int, alreadySo: (StoredUser) -> Bool) throws -> UserChange {
        if changed > 0 { return .done }
        guard let user = try find(username: key) else { return .noSuchUser }
        return alreadySo(user) ? .done : .lastAdmin
    }
}
