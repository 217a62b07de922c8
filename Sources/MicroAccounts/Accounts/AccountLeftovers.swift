import Foundation
import MicroAuth
import MicroCore

/// What the account pages keep under a username beside the users table: API tokens, a second
/// factor, passkeys, listed sessions and activity. A user removed from the table (by a command, or by
/// SQL) leaves them behind; forgetting them keeps a later user of the same name from
/// inheriting any of it: the activity stays in the audit, marked as an ended account's. A user
/// given a new password by a command keeps only their second factor and activity.
public enum AccountLeftovers {
    /// Deletes the API tokens, the second factor, the passkeys and the listed sessions kept for `username` in
    /// `database` (the one the account pages keep their state in), and marks its activity as an
    /// ended account's (``ActivityLog/endAccount(of:at:)``).
    public static func forget(_ username: String, in database: Database, now: Int64 = Int64(Date().timeIntervalSince1970)) async throws {
        try await database.migrate(
            DatabaseApiTokenStore.migrations + TwoFactorStore.migrations + PasskeyStore.migrations + DatabaseSessionRegistry.migrations
                + DatabaseActivityLog.migrations)
        let name = Username.key(username)
        try await DatabaseApiTokenStore(database).removeAll(of: name)
        _ = try await TwoFactorStore(database).disable(name)
        try await PasskeyStore(database).removeAll(of: name)
        _ = try await DatabaseSessionRegistry(database).removeAll(of: name, keeping: nil)
        try await DatabaseActivityLog(database).endAccount(of: name, at: now)
    }

    /// Deletes what lets `username` in beside their password, kept in `database`: their API
    /// tokens and passkeys, and their listed sessions (which a new password's credential stamp
    /// ends). What `add-user` over an existing user does, as the users page's "Set password"
    /// does: a password reset after an incident leaves no way in that was added before it.
    /// How many live tokens and passkeys went.
    public static func endAccess(
        of username: String, in database: Database, now: Int64 = Int64(Date().timeIntervalSince1970)
    ) async throws -> (tokens: Int, passkeys: Int) {
        try await database.migrate(DatabaseApiTokenStore.migrations + PasskeyStore.migrations + DatabaseSessionRegistry.migrations)
        let name = Username.key(username)
        let tokens = DatabaseApiTokenStore(database)
        let live = try await tokens.tokens(of: name, now: now).count
        try await tokens.removeAll(of: name)
        let passkeys = try await PasskeyStore(database).removeAll(of: name)
        _ = try await DatabaseSessionRegistry(database).removeAll(of: name, keeping: nil)
        return (live, passkeys)
    }
}
