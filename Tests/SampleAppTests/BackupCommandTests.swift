import Foundation
import Micro
import Testing

/// `backup`, one of Micro's commands, run as a tool's operator runs it (Tests/LabTool): a copy
/// taken while another connection writes holds every row committed before it, without a gap,
/// and restores by replacing the file under an app that goes on; a copy that cannot be made
/// fails in one line and leaves nothing behind.
@Suite struct BackupCommandTests {
    /// Runs LabTool's `arguments` in `folder` on a thread of its own, so that the writes this
    /// test makes meanwhile go on.
    private func run(_ arguments: [String], in folder: URL, environment: [String: String]) async throws -> CommandRun {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try CommandRun(arguments, binary: "LabTool", in: folder, environment: environment, clean: true) })
            }
        }
    }

    private func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The ids in `database`'s samples: how many, the highest, and SQLite's integrity check.
    private func ids(_ database: Database) async throws -> (count: Int, highest: Int, check: String) {
        let row = try await database.sql.raw("SELECT count(*) AS n, coalesce(max(id), 0) AS top FROM samples").first()
        let check = try await database.sql.raw("PRAGMA integrity_check").first()
        return (
            try row?.decode(column: "n", as: Int.self) ?? -1, try row?.decode(column: "top", as: Int.self) ?? -1,
            try check?.decode(column: "integrity_check", as: String.self) ?? ""
        )
    }

    private func insert(_ id: Int, into database: Database) async throws {
        let label = String(repeating: "sample \(id) ", count: 8)
        try await database.sql.raw("INSERT INTO samples (id, label) VALUES (\(bind: id), \(bind: label))").run()
    }

    /// The file `lab.db` in `folder`, open, with an empty samples table.
    private func samples(in folder: URL) async throws -> (file: String, database: Database) {
        let file = folder.appendingPathComponent("lab.db").path
        let database = try await Database.sqlite(path: file)
        try await database.sql.raw("CREATE TABLE samples (id INTEGER PRIMARY KEY, label TEXT NOT NULL)").run()
        return (file, database)
    }

    @Test func aCopyTakenUnderWritesRestoresEveryRowCommittedBeforeIt() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (file, database) = try await samples(in: folder)
        // Enough rows that the copy takes a while, written in one transaction.
        try await database.transaction { _ in
            for id in 1...20_000 { try await insert(id, into: database) }
        }

        // One commit per row, for as long as the backup runs.
        let writing = Locked(true)
        let writer = Task {
            var id = 20_000
            while writing.withLock({ $0 }) {
                id += 1
                try await insert(id, into: database)
            }
            return id
        }
        try await Task.sleep(for: .milliseconds(100))
        let before = try await ids(database).highest
        let backup = try await run(["backup", "copy.db"], in: folder, environment: ["MICRO_DATABASE_FILE": file])
        let whenDone = try await ids(database).highest
        writing.withLock { $0 = false }
        let last = try await writer.value
        #expect(backup.status == 0, "\(backup.errors)")
        #expect(backup.output.contains("Wrote a copy of \(file) to copy.db"), "\(backup.output)")
        #expect(whenDone > before, "rows were committed while the backup ran")

        let copy = folder.appendingPathComponent("copy.db").path
        #expect(try FileManager.default.attributesOfItem(atPath: copy)[.posixPermissions] as? Int == 0o600)
        // Restored as "Putting a tool on a server" says, by moving the copy over the file while the app has it
        // open: the app's next statement reads the copy.
        #expect(rename(copy, file) == 0)
        let restored = try await ids(database)
        #expect(restored.check == "ok")
        #expect(restored.count == restored.highest, "no row missing below the highest")
        #expect(restored.highest >= before, "every row committed before the backup began")
        #expect(restored.highest <= last)
        await database.shutdown()
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("partial") }
        #expect(left.isEmpty, "\(left)")
    }

    /// The copy's read waits out a lock held longer than a request's busy timeout (2 s), as it
    /// waits for a moment between the commits of a tool that writes without pause.
    @Test func aCopyWaitsOutALockLongerThanARequestWould() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (file, database) = try await samples(in: folder)
        try await insert(1, into: database)
        // An exclusive lock keeps every reader out until the commit.
        try await database.sql.raw("BEGIN EXCLUSIVE").run()
        try await insert(2, into: database)
        let backup = Task { try await run(["backup", "copy.db"], in: folder, environment: ["MICRO_DATABASE_FILE": file]) }
        try await Task.sleep(for: .seconds(3))
        try await database.sql.raw("COMMIT").run()
        let result = try await backup.value
        await database.shutdown()
        try #require(result.status == 0, "\(result.errors)")
        let copy = try await Database.sqlite(path: folder.appendingPathComponent("copy.db").path)
        let copied = try await ids(copy)
        await copy.shutdown()
        #expect(copied.count == 2 && copied.highest == 2, "the copy began after the commit: \(copied)")
    }

    @Test func aCopyThatCannotBeMadeIsOneLineAndLeavesNothing() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (file, database) = try await samples(in: folder)
        await database.shutdown()
        try "yesterday's".write(to: folder.appendingPathComponent("taken.db"), atomically: true, encoding: .utf8)

        let cases: [(arguments: [String], environment: [String: String], says: String)] = [
            (["backup", "taken.db"], ["MICRO_DATABASE_FILE": file], "taken.db exists"),
            (["backup", "."], ["MICRO_DATABASE_FILE": file], ". is a folder: give the backup's file name in it"),
            (["backup", "no-such-folder/copy.db"], ["MICRO_DATABASE_FILE": file], "no-such-folder/copy.db: cannot write the backup"),
            (["backup", "copy.db", "--db", "missing.db"], [:], "missing.db: no such database"),
            (["backup", "copy.db"], ["MICRO_DATABASE_URL": "postgres://micro@127.0.0.1:1/micro"], "pg_dump"),
        ]
        for (arguments, environment, says) in cases {
            let result = try await run(arguments, in: folder, environment: environment)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.errors.contains(says), "\(arguments): \(result.errors)")
            #expect(result.errors.split(separator: "\n").count == 1, "\(arguments): \(result.errors)")
        }
        #expect(try String(contentsOf: folder.appendingPathComponent("taken.db"), encoding: .utf8) == "yesterday's")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["lab.db", "taken.db"], "\(names)")
    }
}
