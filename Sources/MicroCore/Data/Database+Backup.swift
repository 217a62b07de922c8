import Foundation
import SQLKit

extension Database {
    /// Writes a consistent copy of this SQLite database to `path`, a new file readable and
    /// writable by its owner only, while the app goes on using the database.
    ///
    /// The copy is SQLite's `VACUUM INTO`: one read transaction, so it holds every row committed
    /// before it began and none after. A rollback journal lets no commit through a read: a
    /// writer waits for the copy up to the busy timeout, then fails; the copy, too, waits for a
    /// moment between commits up to this database's busy timeout, so a busy database is copied
    /// from a connection of its own with a longer one (the `backup` command waits up to 30
    /// seconds). The copy appears whole or
    /// not at all: it is written under a temporary name beside `path`, flushed to disk, then
    /// linked into place, which fails rather than replace a file that appeared at `path`
    /// meanwhile.
    ///
    /// Throws a ``DatabaseError`` naming the fault for a database that is not SQLite (PostgreSQL
    /// is copied with `pg_dump`), a `path` that exists, a folder that cannot be written, or a
    /// database that cannot be read; nothing is left at `path` or beside it then. (A process
    /// killed during the copy leaves the hidden `.NAME.partial-...` file.)
    public func backUp(to path: String) async throws {
        guard backend is SqliteBackend else {
            throw DatabaseError("\(self) is not a SQLite file: back it up with its server's own tool (pg_dump for PostgreSQL).")
        }
        let target = URL(fileURLWithPath: path)
        // Asked first so that a name taken fails before the copy's work; link(2) asks again at the end.
        var folder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &folder) {
            throw folder.boolValue ? DatabaseError("\(path) is a folder: give the backup's file name in it.") : Self.exists(path)
        }
        // A hidden name in the same folder: link(2) into place cannot cross file systems, and a
        // half-written copy is never under the name a restore would pick up.
        let partial = target.deletingLastPathComponent()
            .appendingPathComponent(".\(target.lastPathComponent).partial-\(UUID().uuidString)").path
        do throws(PrivateFileError) {
            // VACUUM INTO fills an empty file that exists, keeping its mode: never readable by others.
            guard let descriptor = try PrivateFile.create(partial) else { throw PrivateFileError("a file of that name appeared") }
            close(descriptor)
        } catch {
            throw Self.cannotWrite(path, error.reason)
        }
        defer { unlink(partial) }
        try await run("back up to \(path)") { sql in try await sql.raw("VACUUM INTO \(bind: partial)").run() }
        try Self.flush(partial, path: path)
        guard link(partial, path) == 0 else {
            if errno == EEXIST { throw Self.exists(path) }
            throw Self.cannotWrite(path, String(cString: strerror(errno)))
        }
        // The new name on disk too, so that a crash after the return keeps the backup.
        try? Self.flush(target.deletingLastPathComponent().path, path: path, folder: true)
    }

    private static func exists(_ path: String) -> DatabaseError {
        DatabaseError("\(path) exists: a backup replaces no file; give a new name, or move that one away.")
    }

    private static func cannotWrite(_ path: String, _ reason: String) -> DatabaseError {
        DatabaseError("\(path): cannot write the backup (\(reason)).")
    }

    /// Flushes `file` (a folder's entry list, with `folder`) to disk.
    private static func flush(_ file: String, path: String, folder: Bool = false) throws {
        let descriptor = open(file, folder ? (O_RDONLY | O_DIRECTORY | O_CLOEXEC) : (O_RDONLY | O_CLOEXEC))
        guard descriptor >= 0 else { throw cannotWrite(path, String(cString: strerror(errno))) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw cannotWrite(path, String(cString: strerror(errno))) }
    }
}
