import MicroCore

extension UserTableStore {
    /// Gives the user the name pages show (nil or empty: none, so the username capitalized);
    /// false when there is no such user. The name is no credential: sessions go on.
    public func setName(of username: String, to name: String?) async throws -> Bool {
        let key = Username.key(username)
        let name = name.flatMap { $0.isEmpty ? nil : $0 }
        return try await withTable("set the name of user '\(key)'", guarded: false) { table in
            try await table.change(key, ManagedUserSql.setName(key, name: name, match: table.match))
        } > 0
    }
}
