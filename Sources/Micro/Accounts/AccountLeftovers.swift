/// What the account pages keep under a username beside the users table: API tokens and a
/// second factor. A user removed from the table (by a command, or by SQL) leaves them behind;
/// forgetting them keeps a later user of the same name from inheriting either.
public enum AccountLeftovers {
    /// Deletes the API tokens and the second factor kept for `username` in `database` (the
    /// one the account pages keep their state in).
    public static func forget(_ username: String, in database: Database) async throws {
        try await database.migrate(DatabaseApiTokenStore.migrations + TwoFactorStore.migrations)
        let name = Username.key(username)
        try await DatabaseApiTokenStore(database).removeAll(of: name)
        _ = try await TwoFactorStore(database).disable(name)
    }
}
