import CSQLiteRaw

/// The hand-written driver Micro's SQLite users store used (`SqliteConnection.findUser`): one
/// connection, a persistent prepared statement, text bound and read through SQLite's C calls.
final class RawSqlite: @unchecked Sendable {
    private var db: OpaquePointer?
    private var statement: OpaquePointer?

    init(path: String) {
        sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        sqlite3_busy_timeout(db, 2000)
        sqlite3_prepare_v3(db, "SELECT username, password_hash, name, roles FROM users WHERE username = ?1 COLLATE NOCASE", -1,
            UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
    }

    deinit {
        sqlite3_finalize(statement)
        sqlite3_close_v2(db)
    }

    /// The row's four columns, or nil. One caller at a time (the store held a lock around it).
    func find(_ username: String) -> [String?]? {
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        sqlite3_bind_text(statement, 1, username, Int32(username.utf8.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
        return (0..<4).map { column in sqlite3_column_text(statement, Int32(column)).map { String(cString: $0) } }
    }
}
