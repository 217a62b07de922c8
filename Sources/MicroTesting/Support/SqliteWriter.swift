import VaporCSQLite

/// Another program's connection to a SQLite file: plain SQL, or its write lock held while the
/// app looks users up (`BEGIN EXCLUSIVE` keeps every reader out until ``release()``).
package final class SqliteWriter {
    private var db: OpaquePointer?

    /// Opens `path` (creating it when missing).
    package init(_ path: String) throws {
        guard sqlite_nio_sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            throw SqliteWriterError("cannot open \(path)")
        }
    }

    /// Opens `path` and takes its exclusive lock at once.
    package convenience init(lockingFile path: String) throws {
        try self.init(path)
        try execute("BEGIN EXCLUSIVE")
    }

    /// Ends the transaction: readers may go on.
    package func release() throws {
        try execute("COMMIT")
    }

    package func execute(_ sql: String) throws {
        guard sqlite_nio_sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw SqliteWriterError("\(sql): \(String(cString: sqlite_nio_sqlite3_errmsg(db)))")
        }
    }

    deinit {
        sqlite_nio_sqlite3_close_v2(db)
    }
}

package struct SqliteWriterError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
