import ArgumentParser
import Foundation
import Micro
#if OpenIdConnect
import MicroOpenIdConnect
#endif

/// Renames a user in a users table (SQLite or PostgreSQL), carrying what is kept under the name.
struct RenameUser: UserCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename-user",
        abstract: "Rename a user in a users table, SQLite or PostgreSQL, with their roles, password, API tokens, second factor, passkeys, single sign-on links and activity; their sessions end.")

    @Argument(help: "The username (case-insensitive).")
    var username: String

    @Argument(help: "The new username (checked as add-user checks one: free, and not a look-alike of another user's).")
    var newName: String

    @OptionGroup var database: UserDatabaseOptions

    func validate() throws {
        try UsernameArgument.validate(username)
        do throws(UsernameError) {
            _ = try Username.enforce(newName)
        } catch {
            throw ValidationError("the new name: \(error).")
        }
    }

    func act(on key: String, in table: CommandUserTable) async throws {
        let newKey = try Username.enforce(newName)
        switch try await table.rename(key, to: newKey) {
        case .done: break
        case .noSuchUser: throw table.noSuchUser(key)
        case .taken: throw CommandFailure("'\(newKey)' is another user's name in \(table.place): choose a free one.")
        case .refused(let reason): throw CommandFailure("The new name: \(reason).")
        }
        guard newKey != key else {
            print("'\(key)' already has that name (names are kept in lowercase): nothing changed.")
            return
        }
        do {
            try await table.withDatabase { database in
                try await AccountLeftovers.carry(key, to: newKey, in: database, others: try await Self.others(in: database))
                await CommandEvent.record(ActivityEvent.Kind.renamed, of: newKey, detail: "from \(key), by rename-user", in: database)
            }
        } catch {
            // Fail closed: back to the name the second factor, tokens and passkeys are kept under.
            let back = try? await table.rename(newKey, to: key)
            throw CommandFailure(
                "Cannot carry what is kept under '\(key)' to '\(newKey)'"
                    + (back == .done ? ", so the user keeps the name '\(key)'" : ", and the user could not be given the name '\(key)' back") + ": \(error)")
        }
        print("Renamed user '\(key)' to '\(newKey)' in \(table.place), with their roles, password, API tokens, second factor, passkeys, single sign-on links and activity; their sessions end.")
    }

    /// What moves beside the account pages' rows: the single sign-on links.
    private static func others(in database: Database) async throws -> [@Sendable (String, String) async throws -> Void] {
        #if OpenIdConnect
        let links = try await DatabaseIdentityLinkStore(database)
        return [{ old, new in try await links.rename(old, to: new) }]
        #else
        return []
        #endif
    }
}
