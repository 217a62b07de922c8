import MicroCore
import SQLKit

extension UserTable {
    /// Renames the user `key` to the enforced name `newKey` (not theirs in another case): their
    /// row, with its roles, address, hash and disabled state, takes the new name. Run where no
    /// other change comes between its reading and its writing (a guarded change), so that
    /// the look-alike check reads the table the update writes.
    func rename(_ key: String, to newKey: String) async throws -> UserRename {
        let names = try await sql.raw("SELECT username FROM users").all().map { try $0.decode(column: "username", as: String.self) }
        guard names.contains(where: { Username.key($0) == key }) else { return .noSuchUser }
        if names.contains(where: { Username.key($0) == newKey }) { return .taken }
        let others = names.filter { Username.key($0) != key }
        if let lookalike = UsernameConfusables.lookalike(of: newKey, among: others) {
            return .refused("'\(newKey)' looks like the existing user '\(lookalike)' (Unicode's confusables)")
        }
        try await ensureColumns()
        // The unique index decides: a row another process gave the name since the reading
        // makes SQLite's update do nothing (PostgreSQL's table is locked against writers).
        let update = isSqlite ? "UPDATE OR IGNORE users" : "UPDATE users"
        let row = try await sql.raw("\(unsafeRaw: update) SET username = \(bind: newKey) WHERE " + matching(key) + " RETURNING *").first()
        guard let row else { return .taken }
        note(key, nil)
        note(newKey, try user(in: row, strict: false))
        return .done
    }

    /// Renames `role` to `newRole` for every user holding it (one who holds both keeps one);
    /// the names of the users changed.
    func renameRole(_ role: String, to newRole: String) async throws -> [String] {
        try await ensureColumns()
        let holds = { (number: Int) in "\(ManagedUserSql.spacedRoles) LIKE ?\(number) ESCAPE '\\'" }
        let both = ManagedUserSql.Statement(
            sql: "UPDATE users SET roles = \(ManagedUserSql.without(1)) WHERE \(holds(2)) AND \(holds(3))",
            binds: [role, ManagedUserSql.pattern(role), ManagedUserSql.pattern(newRole)])
        let one = ManagedUserSql.Statement(
            sql: "UPDATE users SET roles = \(ManagedUserSql.replacing(1, with: "' ' || ?3 || ' '")) WHERE \(holds(2))",
            binds: [role, ManagedUserSql.pattern(role), newRole])
        var changed: [String] = []
        for statement in [both, one] {
            let rows = try await sql.raw(query(statement, returning: "username")).all()
            changed += try rows.map { try $0.decode(column: "username", as: String.self) }
        }
        for name in changed { _ = try await find(Username.key(name), strict: false) }
        return changed
    }
}
