import ArgumentParser
import Foundation
import Micro

/// Removes a user from a users table (SQLite or PostgreSQL); their sessions end.
struct RemoveUser: UserCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove-user",
        abstract: "Remove a user from a users table, SQLite or PostgreSQL; their sessions end on their next request.")

    @Argument(help: "The username (case-insensitive).")
    var username: String

    @OptionGroup var database: UserDatabaseOptions

    func act(on key: String, in table: CommandUserTable) async throws {
        guard try await table.remove(username: key) else { throw table.noSuchUser(key) }
        try await table.withDatabase { database in try await AccountLeftovers.forget(key, in: database) }
        print("Removed user '\(key)' from \(table.place), with their API tokens, second factor and listed sessions; their activity stays in the audit as a removed account's.")
    }
}
