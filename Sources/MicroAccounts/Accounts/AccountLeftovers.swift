import Foundation
import MicroAuth
import MicroCore

/// What the account pages keep under a username beside the users table: API tokens, listed
/// sessions, activity, and what their features keep (a second factor, passkeys). A user removed
/// from the table (by a command, or by SQL) leaves them behind; forgetting them keeps a later
/// user of the same name from inheriting any of it: the activity stays in the audit, marked as
/// an ended account's. A user given a new password by a command keeps only their second factor
/// and activity.
public enum AccountLeftovers {
    /// Deletes the API tokens, the listed sessions, what SCIM kept (the client's id, the
    /// profile) and what `features` keep for `username` in `database` (the one the account
    /// pages keep their state in), and marks its activity as an ended account's
    /// (``ActivityLog/endAccount(of:at:)``).
    public static func forget(
        _ username: String, in database: Database, features: [any AccountFeature], now: Int64 = Int64(Date().timeIntervalSince1970)
    ) async throws {
        try await database.migrate(
            DatabaseApiTokenStore.migrations + DatabaseSessionRegistry.migrations + DatabaseActivityLog.migrations + DatabaseSetupLinkStore.migrations)
        let name = Username.key(username)
        try await DatabaseApiTokenStore(database).removeAll(of: name)
        try await DatabaseSetupLinkStore(database).removeAll(of: name)
        for feature in features { try await feature.forget(name, in: database) }
        try await DatabaseScimStore.forget(name, in: database)
        _ = try await DatabaseSessionRegistry(database).removeAll(of: name, keeping: nil)
        try await DatabaseActivityLog(database).endAccount(of: name, at: now)
    }

    /// Deletes what lets `username` in beside their password, kept in `database`: their API
    /// tokens, what `features` gave them (passkeys), and their listed sessions (which a new
    /// password's credential stamp ends). What `add-user` over an existing user does, as the
    /// users page's "Set password" does: a password reset after an incident leaves no way in
    /// that was added before it. What went, for the audit: the live tokens first, then each
    /// feature's.
    public static func endAccess(
        of username: String, in database: Database, features: [any AccountFeature], now: Int64 = Int64(Date().timeIntervalSince1970)
    ) async throws -> [EndedAccess] {
        try await database.migrate(DatabaseApiTokenStore.migrations + DatabaseSessionRegistry.migrations)
        let name = Username.key(username)
        let tokens = DatabaseApiTokenStore(database)
        var ended = [EndedAccess(event: ActivityEvent.Kind.tokenRevoked, count: try await tokens.tokens(of: name, now: now).count)]
        try await tokens.removeAll(of: name)
        for feature in features {
            if let access = try await feature.endAccess(of: name, in: database) { ended.append(access) }
        }
        _ = try await DatabaseSessionRegistry(database).removeAll(of: name, keeping: nil)
        return ended
    }

    /// Carries what `username` keeps in `database` to `newName`, after the users table renamed
    /// them (what `rename-user` does): forgets what an earlier holder of `newName` left, then
    /// moves the API tokens, set-up links, activity, SCIM's external id, what `features` keep
    /// and what `others` move (`others` get the old and the new name: identity links), in one
    /// transaction; the listed sessions of the old name go (their stamp ended them).
    public static func carry(
        _ username: String, to newName: String, in database: Database, features: [any AccountFeature],
        others: [@Sendable (String, String) async throws -> Void] = [], now: Int64 = Int64(Date().timeIntervalSince1970)
    ) async throws {
        let old = Username.key(username)
        let new = Username.key(newName)
        guard old != new else { return }
        // Before the transaction, whose work cannot make the features' tables: the earlier
        // holder is gone, so what they left goes whether or not the carry stands.
        try await forget(new, in: database, features: features, now: now)
        try await database.transaction { _ in
            try await DatabaseApiTokenStore(database).rename(old, to: new)
            try await DatabaseSetupLinkStore(database).rename(old, to: new)
            try await DatabaseActivityLog(database).rename(old, to: new)
            try await DatabaseScimStore.carry(old, to: new, in: database)
            for feature in features { try await feature.carry(old, to: new, in: database) }
            for other in others { try await other(old, new) }
        }
        _ = try await DatabaseSessionRegistry(database).removeAll(of: old, keeping: nil)
    }
}
