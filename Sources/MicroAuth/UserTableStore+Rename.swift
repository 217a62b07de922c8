import MicroCore

extension UserTableStore {
    /// Renames the user `username` to `newName`, enforced and checked as a new user's name is
    /// (no other user's, nor one that looks like it): their row takes the new name with its
    /// roles, address, password and disabled state. Their sessions end, as the sessions of a
    /// removed user do (the credential stamp of the old name is gone); what the account pages
    /// keep under the name is carried by the caller (`Accounts`' leftovers).
    ///
    /// ```swift
    /// switch try await users.rename("ann", to: "ann.lee") {
    /// case .done: ...
    /// case .taken, .noSuchUser, .refused: ...
    /// }
    /// ```
    public func rename(_ username: String, to newName: String) async throws -> UserRename {
        let key = Username.key(username)
        let newKey: String
        do throws(UsernameError) {
            newKey = try Username.enforce(newName)
        } catch {
            return .refused(error.description)
        }
        if newKey == key {
            return try await withTable("read the users table", guarded: false) { try await $0.find(key, strict: false) } == nil ? .noSuchUser : .done
        }
        return try await withTable("rename user '\(key)' to '\(newKey)'", guarded: true) { try await $0.rename(key, to: newKey) }
    }

    /// ``rename(_:to:)``, then `carry` (given the old and the new enforced name) moves what is
    /// kept under the name elsewhere, while the table is still guarded: no other change (a new
    /// user given the old name, whose addition forgets what the name left) comes between the
    /// two. When `carry` throws, the user keeps their old name and its error is thrown.
    public func rename(
        _ username: String, to newName: String, carrying carry: @escaping @Sendable (String, String) async throws -> Void
    ) async throws -> UserRename {
        let key = Username.key(username)
        guard let newKey = try? Username.enforce(newName), newKey != key else { return try await rename(username, to: newName) }
        // The carry's own error comes out as it was thrown.
        let carryFailure = Locked<(any Error)?>(nil)
        do {
            return try await withTable("rename user '\(key)' to '\(newKey)'", guarded: true) { table in
                let outcome = try await table.rename(key, to: newKey)
                guard outcome == .done else { return outcome }
                do {
                    try await carry(key, newKey)
                } catch {
                    carryFailure.withLock { $0 = error }
                    _ = try? await table.rename(newKey, to: key)
                    // A store's own error: a store takes any other for the database's fault, to
                    // try again or to call an outage.
                    throw UserStoreError("\(source): the carry of '\(key)' to '\(newKey)' failed.")
                }
                return outcome
            }
        } catch {
            throw carryFailure.withLock { $0 } ?? error
        }
    }

    /// Gives `username` the role `role` (a no-op when they hold it), in one statement: two
    /// changes at once (two groups a provider adds them to) both stand, where ``ManagedUserStore/setRoles(of:to:keepingOne:)``
    /// after reading the roles would lose one. Their sessions end, as on any change of roles.
    public func addRole(_ role: String, to username: String) async throws -> UserChange {
        let key = try UserTable.key(username, passwordHash: nil, roles: [role], source: source)
        let changed = try await withTable("give user '\(key)' the role '\(role)'", guarded: false) { table in
            try await table.change(key, ManagedUserSql.addRole(key, role: role, match: table.match))
        }
        return try await roleOutcome(key, changed: changed) { $0.user.roles.contains(role) }
    }

    /// Takes the role `role` from `username` (a no-op when they do not hold it), in one
    /// statement as ``addRole(_:to:)``; refused (``UserChange/lastAdmin``) when it would leave
    /// no enabled user with `adminRole`.
    public func removeRole(_ role: String, from username: String, keepingOne adminRole: String) async throws -> UserChange {
        let key = try UserTable.key(username, passwordHash: nil, roles: [role], source: source)
        let changed = try await withTable("take the role '\(role)' from user '\(key)'", guarded: role == adminRole) { table in
            try await table.change(key, ManagedUserSql.removeRole(key, role: role, adminRole: adminRole, match: table.match))
        }
        return try await roleOutcome(key, changed: changed) { !$0.user.roles.contains(role) }
    }

    /// Renames the role `role` to `newRole` for every user who holds it, in one guarded change
    /// (a group renamed at the provider); refused for `adminRole`, which the app's checks
    /// name, and to `adminRole`, which would make every holder an admin. The holders' sessions
    /// end, as on any change of roles.
    public func renameRole(_ role: String, to newRole: String, keepingOne adminRole: String) async throws -> RoleRename {
        if let problem = [role, newRole].lazy.compactMap(User.problem(withRole:)).first { throw UserStoreError("\(source): \(problem).") }
        guard role != adminRole, newRole != adminRole else { return .adminRole }
        guard role != newRole else { return .done(users: 0) }
        let changed = try await withTable("rename the role '\(role)' to '\(newRole)'", guarded: true) { try await $0.renameRole(role, to: newRole) }
        return .done(users: changed.count)
    }

    /// What a change of one role that changed `changed` rows came to: the user already was so,
    /// there is no such user, or the guard refused it.
    private func roleOutcome(_ key: String, changed: Int, alreadySo: @escaping @Sendable (StoredUser) -> Bool) async throws -> UserChange {
        if changed > 0 { return .done }
        return try await withTable("read the users table", guarded: false) { table in
            guard let user = try await table.find(key, strict: false) else { return .noSuchUser }
            return alreadySo(user) ? .done : .lastAdmin
        }
    }
}
