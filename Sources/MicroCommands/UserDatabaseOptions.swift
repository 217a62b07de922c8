import ArgumentParser
import Foundation
import Micro
import MicroPostgres

/// Where the user commands keep users: `--db FILE` (SQLite) or `--database-url URL`
/// (PostgreSQL); without either, where the tool serves from: `MICRO_DATABASE_URL`, else the
/// tool's own file.
struct UserDatabaseOptions: ParsableArguments {
    @Option(help: "The SQLite file (add-user creates it with its users table when missing). Default, for a tool that serves users from a table: its own, unless MICRO_DATABASE_URL is set.")
    var db: String?

    @Option(help: "A PostgreSQL database, postgres://user:password@host:port/database (the users table is created when missing). Default: MICRO_DATABASE_URL, which keeps the password out of the process list every local user can read.")
    var databaseUrl: String?

    func validate() throws {
        guard db == nil || databaseUrl == nil else {
            throw ValidationError("Give either --db FILE (SQLite) or --database-url URL (PostgreSQL), not both.")
        }
        guard db == nil, databaseUrl == nil else { return }
        if let file = MicroCommands.usersFile {
            throw ValidationError(
                "\(MicroCommands.executableName) keeps its users in \(file): add or change them there (`\(MicroCommands.executableName) hash-password` makes a hash), or give --db FILE or --database-url URL for a users table.")
        }
        guard Self.defaultUrl != nil || MicroCommands.databaseFile != nil else {
            throw ValidationError("Give either --db FILE (SQLite) or --database-url URL (PostgreSQL).")
        }
    }

    /// `MICRO_DATABASE_URL`, when set.
    private static var defaultUrl: String? {
        ProcessInfo.processInfo.environment[AppStores.urlVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Runs `body` on the table the options name, opened first (so that a bad URL or file is
    /// reported before the password is asked for; a SQLite file is created when `create`), and
    /// closed after, whatever happened.
    func withTable<T>(create: Bool, _ body: (CommandUserTable) async throws -> T) async throws -> T {
        let table: CommandUserTable
        if let url = databaseUrl ?? (db == nil ? Self.defaultUrl : nil) {
            let flag = databaseUrl == nil ? AppStores.urlVariable : "--database-url"
            table = try await CommandUserTable.postgres(url, named: flag)
        } else {
            let file = db ?? MicroCommands.databaseFile ?? ""
            table = .sqlite(try SqliteUserStore(path: file, create: create), file: file)
        }
        do {
            let result = try await body(table)
            await table.close()
            return result
        } catch {
            await table.close()
            throw error
        }
    }
}
