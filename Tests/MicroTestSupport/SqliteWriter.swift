import SQLiteKit

/// Another program's connection to a SQLite file: plain SQL, or its write lock held while the
/// app looks users up (`BEGIN EXCLUSIVE` keeps every reader out until ``release()``).
///
/// A SQLiteNIO connection of its own, to the SQLite library Micro's stores use, opened as another
/// program would open the file: none of Micro's settings come with it.
package final class SqliteWriter: Sendable {
    private let connection: SQLiteConnection

    /// Opens `path` (creating it when missing).
    package init(_ path: String) async throws {
        do {
            connection = try await SQLiteConnection.open(storage: .file(path: path))
        } catch {
            throw SqliteWriterError("cannot open \(path): \(error)")
        }
        // A plain sqlite3 connection (the sqlite3 shell's) fails at once on another's lock;
        // SQLiteNIO's own busy handler would wait for it without end, hanging a test instead of
        // failing it.
        try await execute("PRAGMA busy_timeout = 0")
    }

    /// Opens `path` and takes its exclusive lock at once.
    package convenience init(lockingFile path: String) async throws {
        try await self.init(path)
        try await execute("BEGIN EXCLUSIVE")
    }

    /// Ends the transaction: readers may go on.
    package func release() async throws {
        try await execute("COMMIT")
    }

    /// Runs one SQL statement; SQLite's refusal (a constraint, a lock) throws a
    /// ``SqliteWriterError`` naming the statement.
    package func execute(_ sql: String) async throws {
        do {
            try await connection.query(sql, []) { _ in }
        } catch {
            throw SqliteWriterError("\(sql): \(error)")
        }
    }

    // SQLiteNIO asks that a connection be closed before it goes: the close runs on SQLiteNIO's
    // thread pool, which holds the connection until then.
    deinit {
        _ = connection.close()
    }
}
