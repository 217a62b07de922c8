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
        guard newKey != key else {
            try await table.requireUser(key)
            print("'\(key)' already has that name (names are kept in lowercase): nothing changed.")
            return
        }
        try await table.withDatabase { database in
            let others = try await Self.others(in: database)
            let outcome: UserRename
            do {
                // Carried while the table is guarded: a user added under the old name meanwhile
                // would forget the second factor, tokens and passkeys before they moved.
                outcome = try await table.rename(key, to: newKey) { old, new in
                    do {
                        try await AccountLeftovers.carry(old, to: new, in: database, others: others)
                    } catch {
                        throw CarryFailure(error: error)
                    }
                }
            } catch let failure as CarryFailure {
                throw CommandFailure("Cannot carry what is kept under '\(key)' to '\(newKey)', so the user keeps the name '\(key)': \(failure.error)")
            }
            switch outcome {
            case .done: break
            case .noSuchUser: throw table.noSuchUser(key)
            case .taken: throw CommandFailure("'\(newKey)' is another user's name in \(table.place): choose a free one.")
            case .refused(let reason): throw CommandFailure("The new name: \(reason).")
            }
            await CommandEvent.record(ActivityEvent.Kind.renamed, of: newKey, detail: "from \(key), by rename-user", in: database)
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

    /// A carry that failed, told apart from the table's own failures.
    private struct CarryFailure: Error {
        let error: any Error
    }
}
