import ArgumentParser
import Foundation
import Micro
import MicroPostgres

/// Writes a consistent copy of a tool's SQLite database while the tool serves
/// (``/MicroCore/Database/backUp(to:)``).
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write a consistent copy of the SQLite database to a new file, readable by you only, while the tool serves (PostgreSQL: pg_dump).")

    @Argument(help: "The copy: a new file (the command fails rather than replace one).")
    var file: String

    @Option(help: "The SQLite file to copy. Default: the tool's own (MICRO_DATABASE_FILE, else the file it names).")
    var db: String?

    func run() async throws {
        let source: String
        if let db {
            source = db
        } else if let url = ProcessInfo.processInfo.environment[AppStores.urlVariable], !url.isEmpty {
            throw CommandFailure("\(MicroCommands.executableName) keeps its data in PostgreSQL (\(AppStores.urlVariable)): back it up with pg_dump.")
        } else if let file = MicroCommands.databaseFile {
            source = file
        } else {
            throw ValidationError("Give --db FILE, the SQLite file to copy.")
        }
        let database: Database
        do throws(ConfigurationError) {
            // The copy's read waits longer than a request's statement would: between the
            // commits of a tool that writes without pause there are only short moments without
            // a lock, which SQLite's busy handler finds by trying again, and an operator's
            // command can wait for one.
            database = Database(try await SqliteBackend.open(path: source, create: false, busyTimeout: .seconds(30)))
        } catch {
            throw CommandFailure(error.message)
        }
        do {
            try await database.backUp(to: file)
            await database.shutdown()
        } catch {
            await database.shutdown()
            throw CommandFailure("\(error)")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        print("Wrote a copy of \(source) to \(file) (\(size) bytes).")
    }
}
