import VaporCSQLite
import Foundation
import Logging
import Synchronization

/// One SQLite connection and its prepared statements.
final class SqliteConnection {
    private var db: OpaquePointer?
    private var findStatement: OpaquePointer?
    /// Whether `findStatement` reads the `roles` column.
    private var findReadsRoles = false
    let path: String
    /// The file it opened (taken just before opening it).
    let identity: FileIdentity?
    /// When the operation under way stops waiting for another connection's lock.
    var deadline = ContinuousClock.now
    private let busyTimeout: Duration
    private let lockWaits: LockWaits

    init(path: String, create: Bool, lockWaits: LockWaits, busyTimeout: Duration) throws(SqliteFailure) {
        self.path = path
        self.lockWaits = lockWaits
        self.busyTimeout = busyTimeout
        if create, FileIdentity(path) == nil {
            // Made 0600 before SQLite opens it, which would create it 0644 (less the umask).
            do throws(PrivateFileError) {
                if let descriptor = try PrivateFile.create(path) { close(descriptor) }
            } catch {
                throw SqliteFailure(path, SQLITE_CANTOPEN, "cannot create the users database (\(error.reason))")
            }
        }
        identity = FileIdentity(path)
        if !create, identity == nil {
            throw SqliteFailure(path, SQLITE_CANTOPEN, "no such users database")
        }
        // Read-write when the file allows it (add-user, save), else SQLite opens it read-only:
        // the look-ups only read.
        let flags = (create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX
        var handle: OpaquePointer?
        let status = sqlite_nio_sqlite3_open_v2(path, &handle, flags, nil)
        db = handle
        guard status == SQLITE_OK else {
            throw SqliteFailure(path, status, "cannot open the users database", detail: handle.map { String(cString: sqlite_nio_sqlite3_errmsg($0)) })
        }
        sqlite_nio_sqlite3_extended_result_codes(handle, 1)
        // Our own busy handler rather than sqlite3_busy_timeout: it stops at the operation's
        // deadline (which includes the time spent queueing for this connection) and counts waits.
        sqlite_nio_sqlite3_busy_handler(handle, { context, attempts in
            guard let context else { return 0 }
            return Unmanaged<SqliteConnection>.fromOpaque(context).takeUnretainedValue().waitForLock(attempts: attempts) ? 1 : 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        sqlite_nio_sqlite3_finalize(findStatement)
        sqlite_nio_sqlite3_close_v2(db)
    }

    /// Called by SQLite while another connection holds a lock: sleeps a little and says whether
    /// to try again (before the deadline) or give up with SQLITE_BUSY.
    private func waitForLock(attempts: Int32) -> Bool {
        let left = deadline - ContinuousClock.now
        guard left > .zero else { return false }
        if attempts == 0 { lockWaits.add() }
        // 1, 2, 4, 8, then 10 ms at a time: a brief lock costs little, a long one few wake-ups.
        let step = Duration.milliseconds(min(10, 1 << min(Int(attempts), 4)))
        let milliseconds = min(step, left).components
        sqlite_nio_sqlite3_sleep(Int32(max(1, milliseconds.seconds * 1000 + milliseconds.attoseconds / 1_000_000_000_000_000)))
        return true
    }

    /// The failure SQLite reported for `status`, in words: what is wrong with the file.
    private func failure(_ status: Int32, doing action: String) -> SqliteFailure {
        let message = db.map { String(cString: sqlite_nio_sqlite3_errmsg($0)) } ?? "no connection"
        let what: String
        switch status & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED:
            what = "the users database is locked by another connection (waited \(Self.words(busyTimeout)))"
        case SQLITE_NOTADB:
            what = "not a SQLite database (damaged or another kind of file)"
        case SQLITE_CORRUPT:
            what = "the users database is corrupt (truncated or damaged)"
        case SQLITE_IOERR:
            what = "cannot read the users database (I/O error)"
        case SQLITE_CANTOPEN:
            what = "cannot open the users database"
        case SQLITE_READONLY:
            what = "the users database is read-only: \(action) needs write access"
        case SQLITE_PERM, SQLITE_AUTH:
            what = "no permission to read the users database"
        case SQLITE_ERROR where message.contains("no such table") || message.contains("no such column"):
            what = "no usable `users` table (username, password_hash, name)"
        default:
            what = "cannot \(action)"
        }
        return SqliteFailure(path, status, what, detail: message)
    }

    /// `2 s`, `250 ms`.
    private static func words(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }

    func execute(_ sql: String, doing action: String = "create the users table") throws(SqliteFailure) {
        let status = sqlite_nio_sqlite3_exec(db, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw failure(status, doing: action) }
    }

    private func prepare(_ sql: String, persistent: Bool = true) throws(SqliteFailure) -> OpaquePointer {
        var statement: OpaquePointer?
        let status = sqlite_nio_sqlite3_prepare_v3(db, sql, -1, persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0, &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw failure(status == SQLITE_OK ? SQLITE_ERROR : status, doing: "read the users table")
        }
        return statement
    }

    /// Checks the table has the columns and every hash is bcrypt; returns the users. With
    /// `skippingMalformed`, a row whose hash is malformed is left out instead.
    func checkUsers(skippingMalformed: Bool = false) throws(SqliteFailure) -> [StoredUser] {
        let statement = try prepare("SELECT rowid, username, password_hash, name, \(rolesColumn) FROM users", persistent: false)
        defer { sqlite_nio_sqlite3_finalize(statement) }
        var users: [StoredUser] = []
        while true {
            let step = sqlite_nio_sqlite3_step(statement)
            if step == SQLITE_DONE { return users }
            guard step == SQLITE_ROW else { throw failure(step, doing: "read the users table") }
            let row = sqlite_nio_sqlite3_column_int64(statement, 0)
            let username = text(statement, 1) ?? ""
            // A row another process added by SQL since the table was opened, in a spelling a
            // look-up cannot find (`ÉMILE`; the next opening rewrites it), gives no user: its
            // stamp would displace that of the row the look-up finds (`émile`).
            guard Self.isFindable(username) else { continue }
            guard let hash = text(statement, 2), StoredUser.isValidStoredHash(hash) else {
                if skippingMalformed { continue }
                throw SqliteFailure(path, SQLITE_MISMATCH, "users row \(row) (user '\(username)'): password_hash is not a bcrypt hash ($2a$, $2b$ or $2y$)")
            }
            guard let roles = User.roles(inList: text(statement, 4) ?? "") else {
                if skippingMalformed { continue }
                throw SqliteFailure(path, SQLITE_MISMATCH, "users row \(row) (user '\(username)'): roles holds a name that is not 1 to 64 lowercase letters, digits, '-' or '_'")
            }
            users.append(StoredUser(user: User(username: username, name: text(statement, 3), roles: roles), passwordHash: hash))
        }
    }

    /// Whether a look-up of the enforced name finds `username`: the same but for ASCII case.
    private static func isFindable(_ username: String) -> Bool {
        let enforced = Username.key(username)
        return enforced.utf8.elementsEqual(username.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 })
    }

    /// Every row's rowid and username, as the table holds them.
    func usernameRows() throws(SqliteFailure) -> [UsernameMigration.Row] {
        let statement = try prepare("SELECT rowid, username FROM users", persistent: false)
        defer { sqlite_nio_sqlite3_finalize(statement) }
        var rows: [UsernameMigration.Row] = []
        while true {
            let step = sqlite_nio_sqlite3_step(statement)
            if step == SQLITE_DONE { return rows }
            guard step == SQLITE_ROW else { throw failure(step, doing: "read the users table") }
            rows.append(UsernameMigration.Row(id: String(sqlite_nio_sqlite3_column_int64(statement, 0)), username: text(statement, 1) ?? ""))
        }
    }

    /// Gives each row (by rowid) its new username, all in one transaction.
    func rename(_ rows: [UsernameMigration.Row]) throws(SqliteFailure) {
        try execute("BEGIN IMMEDIATE", doing: "rewrite the usernames")
        do throws(SqliteFailure) {
            let statement = try prepare("UPDATE users SET username = ?2 WHERE rowid = ?1", persistent: false)
            defer { sqlite_nio_sqlite3_finalize(statement) }
            for row in rows {
                sqlite_nio_sqlite3_bind_int64(statement, 1, Int64(row.id) ?? -1)
                sqlite_nio_sqlite3_bind_text(statement, 2, row.username, -1, sqliteTransient)
                let step = sqlite_nio_sqlite3_step(statement)
                sqlite_nio_sqlite3_reset(statement)
                guard step == SQLITE_DONE else { throw failure(step, doing: "rewrite the usernames") }
            }
            try execute("COMMIT", doing: "rewrite the usernames")
        } catch {
            sqlite_nio_sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }

    func findUser(_ username: String) throws(SqliteFailure) -> StoredUser? {
        // Prepared again when the `roles` column came or went (another process's add-user):
        // the stamps made from this look-up must match those of the table's full reading.
        let readsRoles = hasRolesColumn
        if findStatement == nil || findReadsRoles != readsRoles {
            sqlite_nio_sqlite3_finalize(findStatement)
            findStatement = nil
            findStatement = try prepare("SELECT username, password_hash, name, \(rolesColumn) FROM users WHERE username = ?1 COLLATE NOCASE")
            findReadsRoles = readsRoles
        }
        let statement = findStatement
        defer {
            sqlite_nio_sqlite3_reset(statement)
            sqlite_nio_sqlite3_clear_bindings(statement)
        }
        sqlite_nio_sqlite3_bind_text(statement, 1, username, Int32(username.utf8.count), sqliteTransient)
        let step = sqlite_nio_sqlite3_step(statement)
        switch step {
        case SQLITE_ROW:
            guard let name = text(statement, 0), let hash = text(statement, 1) else { return nil }
            guard let roles = User.roles(inList: text(statement, 3) ?? "") else {
                throw SqliteFailure(path, SQLITE_MISMATCH, "user '\(name)': roles holds a name that is not 1 to 64 lowercase letters, digits, '-' or '_'")
            }
            return StoredUser(user: User(username: name, name: text(statement, 2), roles: roles), passwordHash: hash)
        case SQLITE_DONE:
            return nil
        default:
            throw failure(step, doing: "read the users table")
        }
    }

    func upsert(_ username: String, _ hash: String, _ name: String?, roles: [String]) throws(SqliteFailure) {
        if !roles.isEmpty, !hasRolesColumn { try execute("ALTER TABLE users ADD COLUMN roles TEXT") }
        let withRoles = hasRolesColumn
        let statement = try prepare(withRoles ? """
            INSERT INTO users (username, password_hash, name, roles) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT(username) DO UPDATE SET password_hash = excluded.password_hash, name = excluded.name, roles = excluded.roles
            """ : """
            INSERT INTO users (username, password_hash, name) VALUES (?1, ?2, ?3)
            ON CONFLICT(username) DO UPDATE SET password_hash = excluded.password_hash, name = excluded.name
            """, persistent: false)
        defer { sqlite_nio_sqlite3_finalize(statement) }
        sqlite_nio_sqlite3_bind_text(statement, 1, username, -1, sqliteTransient)
        sqlite_nio_sqlite3_bind_text(statement, 2, hash, -1, sqliteTransient)
        if let name { sqlite_nio_sqlite3_bind_text(statement, 3, name, -1, sqliteTransient) } else { sqlite_nio_sqlite3_bind_null(statement, 3) }
        if withRoles {
            if roles.isEmpty { sqlite_nio_sqlite3_bind_null(statement, 4) } else { sqlite_nio_sqlite3_bind_text(statement, 4, roles.joined(separator: " "), -1, sqliteTransient) }
        }
        let step = sqlite_nio_sqlite3_step(statement)
        guard step == SQLITE_DONE else { throw failure(step, doing: "save user '\(username)'") }
    }

    /// Whether the table has the optional `roles` column.
    private var hasRolesColumn: Bool {
        sqlite_nio_sqlite3_table_column_metadata(db, nil, "users", "roles", nil, nil, nil, nil, nil) == SQLITE_OK
    }

    /// The `roles` column, or nothing where the table has none.
    private var rolesColumn: String { hasRolesColumn ? "roles" : "NULL" }

    /// Replaces the hash of `username` when it is still `old`; whether it did.
    func replaceHash(_ username: String, _ old: String, _ new: String) throws(SqliteFailure) -> Bool {
        let statement = try prepare(
            "UPDATE users SET password_hash = ?3 WHERE username = ?1 COLLATE NOCASE AND password_hash = ?2", persistent: false)
        defer { sqlite_nio_sqlite3_finalize(statement) }
        sqlite_nio_sqlite3_bind_text(statement, 1, username, -1, sqliteTransient)
        sqlite_nio_sqlite3_bind_text(statement, 2, old, -1, sqliteTransient)
        sqlite_nio_sqlite3_bind_text(statement, 3, new, -1, sqliteTransient)
        let step = sqlite_nio_sqlite3_step(statement)
        guard step == SQLITE_DONE else { throw failure(step, doing: "re-hash the password of user '\(username)'") }
        return sqlite_nio_sqlite3_changes(db) > 0
    }

    func delete(_ username: String) throws(SqliteFailure) -> Bool {
        let statement = try prepare("DELETE FROM users WHERE username = ?1 COLLATE NOCASE", persistent: false)
        defer { sqlite_nio_sqlite3_finalize(statement) }
        sqlite_nio_sqlite3_bind_text(statement, 1, username, -1, sqliteTransient)
        let step = sqlite_nio_sqlite3_step(statement)
        guard step == SQLITE_DONE else { throw failure(step, doing: "remove user '\(username)'") }
        return sqlite_nio_sqlite3_changes(db) > 0
    }

    func count() throws(SqliteFailure) -> Int {
        let statement = try prepare("SELECT count(*) FROM users", persistent: false)
        defer { sqlite_nio_sqlite3_finalize(statement) }
        let step = sqlite_nio_sqlite3_step(statement)
        guard step == SQLITE_ROW else { throw failure(step, doing: "count the users") }
        return Int(sqlite_nio_sqlite3_column_int64(statement, 0))
    }

    /// Runs `statement` (a write); how many rows it changed. Adds the `roles` column first to
    /// a table made before users had roles, as ``upsert(_:_:_:roles:)`` does: the statements
    /// read it.
    func run(_ statement: ManagedUserSql.Statement, doing action: String) throws(SqliteFailure) -> Int {
        if !hasRolesColumn { try execute("ALTER TABLE users ADD COLUMN roles TEXT", doing: action) }
        let prepared = try prepare(statement.sql, persistent: false)
        defer { sqlite_nio_sqlite3_finalize(prepared) }
        for (index, value) in statement.binds.enumerated() {
            if let value {
                sqlite_nio_sqlite3_bind_text(prepared, Int32(index + 1), value, -1, sqliteTransient)
            } else {
                sqlite_nio_sqlite3_bind_null(prepared, Int32(index + 1))
            }
        }
        let step = sqlite_nio_sqlite3_step(prepared)
        guard step == SQLITE_DONE else { throw failure(step, doing: action) }
        return Int(sqlite_nio_sqlite3_changes(db))
    }

    private func text(_ statement: OpaquePointer?, _ column: Int32) -> String? {
        guard let pointer = sqlite_nio_sqlite3_column_text(statement, column) else { return nil }
        return String(cString: pointer)
    }
}

/// SQLite's SQLITE_TRANSIENT: copy the bound text now.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
