import CSQLite

/// Another program's connection to a SQLite file, to hold its write lock while the app looks
/// users up: `BEGIN EXCLUSIVE` keeps every reader out until ``release()``.
final class SqliteWriter {
    private var db: OpaquePointer?

    /// Opens `path` and takes its exclusive lock at once.
    init(lockingFile path: String) throws {
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            throw SqliteWriterError("cannot open \(path)")
        }
        try execute("BEGIN EXCLUSIVE")
    }

    /// Ends the transaction: readers may go on.
    func release() throws {
        try execute("COMMIT")
    }

    private func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw SqliteWriterError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    deinit {
        sqlite3_close_v2(db)
    }
}

struct SqliteWriterError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
