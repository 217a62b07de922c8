import ArgumentParser
import Micro

/// A command about one user already in a users table (`remove-user`, `reset-two-factor`,
/// `unlink`): the name is checked before anything opens (a usage error says why it is
/// refused), then the table opens and ``act(on:in:)`` gets the name's key. A command of this
/// shape declares only its own options and what it does.
protocol UserCommand: AsyncParsableCommand {
    /// The username as typed (case-insensitive).
    var username: String { get }
    /// Which users table.
    var database: UserDatabaseOptions { get }
    /// Does the command's work on the user `key` (the name as the store keeps it) in `table`.
    func act(on key: String, in table: CommandUserTable) async throws
}

extension UserCommand {
    func validate() throws {
        try UsernameArgument.validate(username)
    }

    func run() async throws {
        let key = try Username.enforce(username)
        try await database.withTable(create: false) { table in try await act(on: key, in: table) }
    }
}
