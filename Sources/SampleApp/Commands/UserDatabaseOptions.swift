import ArgumentParser
import Micro

/// Where `add-user` and `remove-user` keep users: `--db FILE` (SQLite) or `--database-url URL`
/// (PostgreSQL).
struct UserDatabaseOptions: ParsableArguments {
    @Option(help: "The SQLite file (add-user creates it with its users table when missing).")
    var db: String?

    @Option(help: "A PostgreSQL database, postgres://user:password@host:port/database (the users table is created when missing).")
    var databaseUrl: String?

    func validate() throws {
        guard (db == nil) != (databaseUrl == nil) else {
            throw ValidationError("Give either --db FILE (SQLite) or --database-url URL (PostgreSQL).")
        }
    }

    /// Runs `body` on the table the options name, opened first (so that a bad URL or file is
    /// reported before the password is asked for; a SQLite file is created when `create`), and
    /// closed after.
    func withTable<T>(create: Bool, _ body: (CommandUserTable) async throws -> T) async throws -> T {
        guard let databaseUrl else {
            let file = db ?? ""
            return try await body(.sqlite(try SqliteUserStore(path: file, create: create), file: file))
        }
        let shared: SharedDatabase
        do {
            shared = try await SharedDatabase.connect(databaseUrl)
        } catch {
            throw ValidationError("--database-url: \(error.message.replacingOccurrences(of: SharedDatabase.variable + ": ", with: ""))")
        }
        defer { shared.database.shutdown() }
        return try await body(.postgres(shared))
    }
}
