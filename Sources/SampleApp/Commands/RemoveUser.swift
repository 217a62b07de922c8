import ArgumentParser
import Foundation
import Micro

/// Removes a user from a users table (SQLite or PostgreSQL); their sessions end.
struct RemoveUser: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove-user",
        abstract: "Remove a user from a users table, SQLite or PostgreSQL; their sessions end on their next request.")

    @Argument(help: "The username (case-insensitive).")
    var username: String

    @OptionGroup var database: UserDatabaseOptions

    func run() async throws {
        try await database.withTable(create: false) { table in
            guard try await table.remove(username: username) else {
                FileHandle.standardError.write(Data("No user '\(username.lowercased())' in \(table.place).\n".utf8))
                throw ExitCode.failure
            }
            print("Removed user '\(username.lowercased())' from \(table.place).")
        }
    }
}
