import MicroCore

/// A store of a `users` table (``SqliteUserStore``, `PostgresUserStore`): what it brings is how
/// it reaches the table; the admin's changes are written once, here, over ``UserTable``.
public protocol UserTableStore: ManagedUserStore {
    /// Where the table is, in messages: a file's path, a URL without its password.
    var source: String { get }
    /// Runs `work` on the table, doing `action` (for messages); a `guarded` change (one whose
    /// condition reads other rows: the last admin) runs where no other change can come between
    /// its reading and its writing. The table's `note` keeps the store's stamps current.
    func withTable<T: Sendable>(_ action: String, guarded: Bool, _ work: @escaping @Sendable (UserTable) async throws -> T) async throws -> T
}

extension UserTableStore {
    /// Every well-formed user, read now (no hashes).
    public func allUsers() async throws -> [User] {
        try await managedUsers().map(\.user)
    }

    /// Every well-formed user, read now, with whether they are disabled (no hashes leave the store).
    public func managedUsers() async throws -> [ManagedUser] {
        try await withTable("list the users", guarded: false) { try await $0.list() }
    }

    public func addUser(username: String, name: String?, roles: [String], email: String?, passwordHash: String, passwordChangeDue: Bool) async throws -> Bool {
        try await addUser(username: username, name: name, roles: roles, email: email, passwordHash: passwordHash, passwordChangeDue: passwordChangeDue, disabled: false)
    }

    /// Adds a user, `disabled` from the start when asked: in the one write, so that they are
    /// never enabled for a moment (nor left enabled by a failure before a second write).
    public func addUser(
        username: String, name: String?, roles: [String], email: String?, passwordHash: String, passwordChangeDue: Bool, disabled: Bool
    ) async throws -> Bool {
        let key = try UserTable.key(username, passwordHash: passwordHash, roles: roles, source: source)
        let email = try UserTable.address(email, of: key, source: source)
        // A disabled user's hash is their own behind a `!`, as ``ManagedUserSql/disable(_:adminRole:match:)`` writes it.
        let stored = disabled ? "!" + passwordHash : passwordHash
        let statement = ManagedUserSql.add(key, name: name, roles: roles, email: email, hash: stored, changeDue: passwordChangeDue)
        return try await withTable("add user '\(key)'", guarded: false) { try await $0.change(key, statement) } > 0
    }

    public func setPasswordHash(of username: String, to passwordHash: String, changeDue: Bool) async throws -> Bool {
        let key = try UserTable.key(username, passwordHash: passwordHash, roles: [], source: source)
        return try await withTable("set the password of user '\(key)'", guarded: false) { table in
            try await table.change(key, ManagedUserSql.setHash(key, hash: passwordHash, changeDue: changeDue, match: table.match))
        } > 0
    }

    public func replaceOwnPasswordHash(of username: String, _ old: String, with new: String) async throws -> Bool {
        let key = try UserTable.key(username, passwordHash: new, roles: [], source: source)
        return try await withTable("change the password of user '\(key)'", guarded: false) { table in
            try await table.replaceHash(key, old, with: new, clearingChangeDue: true)
        }
    }

    public func username(withEmail email: MailAddress) async throws -> String? {
        try await withTable("find a user by email address", guarded: false) { try await $0.username(withEmail: email.description) }
    }

    public func setEmail(of username: String, to email: String?) async throws -> EmailChange {
        let key = Username.key(username)
        let email = try UserTable.address(email, of: key, source: source)
        let changed = try await withTable("set the email address of user '\(key)'", guarded: email != nil) { table in
            try await table.change(key, ManagedUserSql.setEmail(key, email: email, match: table.match))
        }
        if changed > 0 { return .done }
        return try await withTable("read the users table", guarded: false) { table in
            guard let user = try await table.find(key) else { return .noSuchUser }
            return user.user.email?.lowercased() == email?.lowercased() ? .done : .taken
        }
    }


    public func setRoles(of username: String, to roles: [String], keepingOne adminRole: String) async throws -> UserChange {
        let key = try UserTable.key(username, passwordHash: nil, roles: roles, source: source)
        let changed = try await withTable("set the roles of user '\(key)'", guarded: !roles.contains(adminRole)) { table in
            try await table.change(key, ManagedUserSql.setRoles(key, roles: roles, adminRole: adminRole, match: table.match))
        }
        return try await outcome(key, changed: changed) { _ in false }
    }

    public func setDisabled(_ disabled: Bool, username: String, keepingOne adminRole: String) async throws -> UserChange {
        let key = Username.key(username)
        let changed = try await withTable(disabled ? "disable user '\(key)'" : "enable user '\(key)'", guarded: disabled) { table in
            try await table.change(
                key, disabled ? ManagedUserSql.disable(key, adminRole: adminRole, match: table.match) : ManagedUserSql.enable(key, match: table.match))
        }
        return try await outcome(key, changed: changed) { $0.isDisabled == disabled }
    }

    public func removeUser(username: String, keepingOne adminRole: String) async throws -> UserChange {
        let key = Username.key(username)
        let changed = try await withTable("remove user '\(key)'", guarded: true) { table in
            try await table.change(key, ManagedUserSql.remove(key, adminRole: adminRole, match: table.match))
        }
        return try await outcome(key, changed: changed) { _ in false }
    }

    /// What a change that changed `changed` rows came to: none, because there is no such
    /// user, because the user already was so, or because the guard refused it.
    private func outcome(_ key: String, changed: Int, alreadySo: @escaping @Sendable (StoredUser) -> Bool) async throws -> UserChange {
        if changed > 0 { return .done }
        return try await withTable("read the users table", guarded: false) { table in
            guard let user = try await table.find(key) else { return .noSuchUser }
            return alreadySo(user) ? .done : .lastAdmin
        }
    }
}
