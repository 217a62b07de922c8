import CSQLite
import Foundation
import Logging
import Synchronization

/// Users from the `users` table of a SQLite file, through prepared, parameterised statements:
///
/// ```sql
/// CREATE TABLE users (
///     username TEXT NOT NULL UNIQUE COLLATE NOCASE,
///     password_hash TEXT NOT NULL,
///     name TEXT,
///     roles TEXT  -- optional column: role names separated by spaces or commas, "admin editor"
/// );
/// ```
///
/// Safe to use from many requests at once: one connection, its statements used one at a time.
///
/// Faults while the app runs answer the sign-in with a 503 and heal by themselves: a database
/// locked by another writer is waited for up to `busyTimeout`; a file that became unreadable or
/// corrupt closes the connection, and the next look-up opens the file afresh; a file moved away
/// is reported missing; another file put in its place (a restored backup) is opened instead.
/// A read-only file works: the store only reads, unless you ``save(username:passwordHash:name:)``.
public final class SqliteUserStore: PasswordUpgradingUserStore, UserListing, Reloadable {
    /// The database file.
    public let path: String
    /// How long a look-up waits for another connection's write lock before it gives up.
    public let busyTimeout: Duration
    private let connection: Locked<Connection?>
    private let summary: Locked<Summary>
    /// How often a look-up found the database locked and waited: tests watch it.
    let lockWaits: LockWaits

    /// What the last full reading of the table found.
    private struct Summary {
        var cost: Int?
        var slowestCost: Int?
        var users: Int
        /// Each user's stamp, by lowercased name: what signed-in sessions are checked against.
        var stamps: [String: CredentialStamp]
    }

    /// When the stamps were last read again from the table (uptime nanoseconds), and whether a
    /// reading is under way: requests never wait for one.
    private let lastRefresh = Atomic<UInt64>(0)
    private let refreshing = Atomic<Bool>(false)
    /// How often signed-in requests have the stamps read again in the background.
    static let refreshInterval: UInt64 = 1_000_000_000

    /// Opens the users table in `path`. With `create`, makes the file and the table when missing
    /// (for tools that add users); otherwise a missing file or table is an error. Every stored
    /// hash is checked: a malformed one is an error naming the user. A lock held by another
    /// writer is waited for up to `busyTimeout` (2 seconds by default).
    ///
    /// Every error names the file and what is wrong with it: missing, locked, not a SQLite
    /// database, corrupt, no `users` table, a bad hash.
    ///
    /// The file holds password hashes: a new one is created readable and writable by its owner
    /// only (0600, whatever the umask), and SQLite gives its journal files the same mode. An
    /// existing one that group or others may open is logged as a warning (label `micro`),
    /// naming the file and the fix (`chmod 600 users.db`, or `chmod 400` for a read-only file).
    public init(path: String, create: Bool = false, busyTimeout: Duration = .seconds(2)) throws(ConfigurationError) {
        self.path = path
        self.busyTimeout = busyTimeout
        let lockWaits = LockWaits()
        self.lockWaits = lockWaits
        let opened: (Connection, Summary)
        do throws(SqliteFailure) {
            opened = try Self.open(path, create: create, busyTimeout: busyTimeout, lockWaits: lockWaits)
        } catch {
            throw ConfigurationError(error.description)
        }
        connection = Locked(opened.0)
        summary = Locked(opened.1)
        lastRefresh.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        if let warning = PrivateFile.warning(for: path, holding: "password hashes") {
            Logger(label: "micro").warning("\(warning)")
        }
    }

    static let schema = """
        CREATE TABLE IF NOT EXISTS users (
            username TEXT NOT NULL UNIQUE COLLATE NOCASE,
            password_hash TEXT NOT NULL,
            name TEXT,
            roles TEXT
        )
        """

    /// The user, or nil. Throws a ``UserStoreError`` saying what is wrong when the database
    /// cannot be read now (missing, locked for longer than `busyTimeout`, corrupt).
    public func find(username: String) throws -> StoredUser? {
        let name = username.lowercased()
        return try withConnection { connection throws(SqliteFailure) in
            let found = try connection.findUser(name)
            // What the table says now is what the user's next request is checked against; set
            // while the connection is held, so no other change to the table can come between.
            summary.withLock { $0.stamps[name] = found.map(CredentialStamp.init) }
            return found
        }
    }

    /// Every user whose row is well formed, read now.
    public func allUsers() async throws -> [User] {
        try withConnection { connection throws(SqliteFailure) in
            try connection.checkUsers(skippingMalformed: true)
        }.map(\.user).sorted { $0.username < $1.username }
    }

    /// The median cost of the hashes found when the table was last read.
    public var typicalCost: Int? { summary.withLock { $0.cost } }

    /// The highest cost found when the table was last read, or written since.
    public var slowestCost: Int? { summary.withLock { $0.slowestCost } }

    /// From memory; a change made in the table by another process (`add-user`, plain SQL) is
    /// seen within about a second: a signed-in request has the table read again in the
    /// background when the last reading is older than that. A row whose hash is malformed
    /// gives its user no stamp: their sessions end.
    public func isCurrent(_ stamp: CredentialStamp, username: String) -> Bool {
        refreshIfDue()
        return summary.withLock { $0.stamps[username] == stamp }
    }

    public func replacePasswordHash(of username: String, _ old: String, with new: String) throws -> Bool {
        guard Password.isValidHash(new) else { throw UserStoreError("\(path): not a bcrypt hash for user '\(username)'.") }
        let key = username.lowercased()
        return try withConnection { connection throws(SqliteFailure) in
            let replaced = try connection.replaceHash(key, old, new)
            if replaced { note(key, passwordHash: new, roles: try connection.findUser(key)?.user.roles ?? []) }
            return replaced
        }
    }

    /// A user's new hash, written by this store: their stamp, and the slowest cost.
    private func note(_ username: String, passwordHash: String, roles: [String]) {
        summary.withLock { summary in
            summary.stamps[username] = CredentialStamp(username: username, passwordHash: passwordHash, roles: roles)
            if let cost = Password.cost(of: passwordHash) { summary.slowestCost = max(summary.slowestCost ?? cost, cost) }
        }
    }

    private func refreshIfDue() {
        let now = DispatchTime.now().uptimeNanoseconds
        guard now &- lastRefresh.load(ordering: .relaxed) > Self.refreshInterval,
            refreshing.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        DispatchQueue.global().async { [self] in
            defer {
                lastRefresh.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
                refreshing.store(false, ordering: .releasing)
            }
            // Read and swapped in while the connection is held, so that no change this store
            // makes comes between; the stamps are made before the summary's lock is taken. A
            // table that cannot be read now keeps the stamps it had: sign-in reports the fault.
            _ = try? withConnection { connection throws(SqliteFailure) in
                let fresh = Self.summary(try connection.checkUsers(skippingMalformed: true))
                summary.withLock { $0 = fresh }
            }
        }
    }

    /// Adds the user, or changes their hash, name and roles when they exist. A table without
    /// a `roles` column gets one when roles are given.
    public func save(username: String, passwordHash: String, name: String?, roles: [String] = []) throws {
        guard Password.isValidHash(passwordHash) else {
            throw UserStoreError("\(path): not a bcrypt hash for user '\(username)'.")
        }
        if let problem = roles.lazy.compactMap(User.problem(withRole:)).first {
            throw UserStoreError("\(path): user '\(username)': \(problem).")
        }
        let key = username.lowercased()
        try withConnection { connection throws(SqliteFailure) in
            try connection.upsert(key, passwordHash, name, roles: roles)
            note(key, passwordHash: passwordHash, roles: roles)
        }
    }

    /// Removes the user; whether there was one. Their sessions end on their next request.
    public func remove(username: String) throws -> Bool {
        let key = username.lowercased()
        return try withConnection { connection throws(SqliteFailure) in
            let removed = try connection.delete(key)
            summary.withLock { $0.stamps[key] = nil }
            return removed
        }
    }

    /// How many users the table holds.
    public func count() throws -> Int {
        try withConnection { connection throws(SqliteFailure) in try connection.count() }
    }

    /// Opens the file afresh and checks every user again, as at start-up; `SIGHUP` does this
    /// while ``App/run()`` serves. On a problem, throws it and keeps the connection it had.
    public func reload() throws(ConfigurationError) {
        do throws(SqliteFailure) {
            try connection.withLock { (current: inout Connection?) throws(SqliteFailure) in
                let opened = try Self.open(path, create: false, busyTimeout: busyTimeout, lockWaits: lockWaits)
                current = opened.0
                summary.withLock { $0 = opened.1 }
            }
        } catch {
            throw ConfigurationError(error.description)
        }
    }

    /// `users from users.db (3 users)`, for the log after a reload.
    public var reloadSummary: String {
        let count = summary.withLock { $0.users }
        return "users from \(path) (\(count) user\(count == 1 ? "" : "s"))"
    }

    /// Runs `work` on a connection to the file now at `path`, opening one when there is none
    /// (after a failure) or when another file took the path. A failure other than a lock closes
    /// the connection, so that the next call starts afresh.
    private func withConnection<T: Sendable>(_ work: (Connection) throws(SqliteFailure) -> T) throws(UserStoreError) -> T {
        // Time spent waiting for this mutex, behind a look-up that waits for a lock, counts too.
        let deadline = ContinuousClock.now + busyTimeout
        do throws(SqliteFailure) {
            return try connection.withLock { (current: inout Connection?) throws(SqliteFailure) -> T in
                guard let identity = FileIdentity(path) else {
                    throw SqliteFailure(path, SQLITE_CANTOPEN, "the users database is missing (moved or deleted?)")
                }
                let connection: Connection
                if let open = current, open.identity == identity {
                    connection = open
                } else {
                    current = nil
                    let opened = try Self.open(path, create: false, busyTimeout: busyTimeout, lockWaits: lockWaits, deadline: deadline)
                    summary.withLock { $0 = opened.1 }
                    connection = opened.0
                    current = connection
                }
                connection.deadline = deadline
                do throws(SqliteFailure) {
                    return try work(connection)
                } catch {
                    if !error.isLock { current = nil }
                    throw error
                }
            }
        } catch {
            throw UserStoreError(error.description)
        }
    }

    /// A connection to `path` whose users table has been checked, with the table's summary.
    private static func open(
        _ path: String, create: Bool, busyTimeout: Duration, lockWaits: LockWaits, deadline: ContinuousClock.Instant? = nil
    ) throws(SqliteFailure) -> (Connection, Summary) {
        let connection = try Connection(path: path, create: create, lockWaits: lockWaits, busyTimeout: busyTimeout)
        connection.deadline = deadline ?? ContinuousClock.now + busyTimeout
        if create { try connection.execute(schema) }
        return (connection, summary(try connection.checkUsers()))
    }

    private static func summary(_ users: [StoredUser]) -> Summary {
        let costs = users.compactMap { Password.cost(of: $0.passwordHash) }.sorted()
        var stamps: [String: CredentialStamp] = [:]
        for user in users { stamps[user.user.username] = CredentialStamp(user) }
        return Summary(cost: costs.isEmpty ? nil : costs[costs.count / 2], slowestCost: costs.last, users: users.count, stamps: stamps)
    }
}

/// Counts the waits for another connection's lock.
final class LockWaits: Sendable {
    private let count = Atomic<Int>(0)

    /// How many waits began so far.
    var value: Int { count.load(ordering: .relaxed) }

    func add() { count.add(1, ordering: .relaxed) }
}

/// Which file a path names: its device and inode, so that a file put in place of another is
/// noticed.
struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64

    /// The identity of the file at `path`; nil when there is none.
    init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

/// What SQLite said went wrong, with the file, in words a person can act on.
struct SqliteFailure: Error, CustomStringConvertible {
    /// SQLite's primary result code.
    let code: Int32
    let description: String

    init(_ path: String, _ code: Int32, _ what: String, detail: String? = nil) {
        self.code = code & 0xFF
        description = "\(path): \(what)" + (detail.map { " (SQLite: \($0))" } ?? "") + "."
    }

    /// Another connection holds a lock: a wait that timed out, not damage.
    var isLock: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
}

/// One SQLite connection and its prepared statements.
private final class Connection {
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
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        db = handle
        guard status == SQLITE_OK else {
            throw SqliteFailure(path, status, "cannot open the users database", detail: handle.map { String(cString: sqlite3_errmsg($0)) })
        }
        sqlite3_extended_result_codes(handle, 1)
        // Our own busy handler rather than sqlite3_busy_timeout: it stops at the operation's
        // deadline (which includes the time spent queueing for this connection) and counts waits.
        sqlite3_busy_handler(handle, { context, attempts in
            guard let context else { return 0 }
            return Unmanaged<Connection>.fromOpaque(context).takeUnretainedValue().waitForLock(attempts: attempts) ? 1 : 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        sqlite3_finalize(findStatement)
        sqlite3_close_v2(db)
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
        sqlite3_sleep(Int32(max(1, milliseconds.seconds * 1000 + milliseconds.attoseconds / 1_000_000_000_000_000)))
        return true
    }

    /// The failure SQLite reported for `status`, in words: what is wrong with the file.
    private func failure(_ status: Int32, doing action: String) -> SqliteFailure {
        let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "no connection"
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

    func execute(_ sql: String) throws(SqliteFailure) {
        let status = sqlite3_exec(db, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw failure(status, doing: "create the users table") }
    }

    private func prepare(_ sql: String, persistent: Bool = true) throws(SqliteFailure) -> OpaquePointer {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(db, sql, -1, persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0, &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw failure(status == SQLITE_OK ? SQLITE_ERROR : status, doing: "read the users table")
        }
        return statement
    }

    /// Checks the table has the columns and every hash is bcrypt; returns the users. With
    /// `skippingMalformed`, a row whose hash is malformed is left out instead.
    func checkUsers(skippingMalformed: Bool = false) throws(SqliteFailure) -> [StoredUser] {
        let statement = try prepare("SELECT rowid, username, password_hash, name, \(rolesColumn) FROM users", persistent: false)
        defer { sqlite3_finalize(statement) }
        var users: [StoredUser] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return users }
            guard step == SQLITE_ROW else { throw failure(step, doing: "read the users table") }
            let row = sqlite3_column_int64(statement, 0)
            let username = text(statement, 1) ?? ""
            guard let hash = text(statement, 2), Password.isValidHash(hash) else {
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

    func findUser(_ username: String) throws(SqliteFailure) -> StoredUser? {
        // Prepared again when the `roles` column came or went (another process's add-user):
        // the stamps made from this look-up must match those of the table's full reading.
        let readsRoles = hasRolesColumn
        if findStatement == nil || findReadsRoles != readsRoles {
            sqlite3_finalize(findStatement)
            findStatement = nil
            findStatement = try prepare("SELECT username, password_hash, name, \(rolesColumn) FROM users WHERE username = ?1 COLLATE NOCASE")
            findReadsRoles = readsRoles
        }
        let statement = findStatement
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        sqlite3_bind_text(statement, 1, username, Int32(username.utf8.count), sqliteTransient)
        let step = sqlite3_step(statement)
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
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_text(statement, 1, username, -1, sqliteTransient)
        sqlite3_bind_text(statement, 2, hash, -1, sqliteTransient)
        if let name { sqlite3_bind_text(statement, 3, name, -1, sqliteTransient) } else { sqlite3_bind_null(statement, 3) }
        if withRoles {
            if roles.isEmpty { sqlite3_bind_null(statement, 4) } else { sqlite3_bind_text(statement, 4, roles.joined(separator: " "), -1, sqliteTransient) }
        }
        let step = sqlite3_step(statement)
        guard step == SQLITE_DONE else { throw failure(step, doing: "save user '\(username)'") }
    }

    /// Whether the table has the optional `roles` column.
    private var hasRolesColumn: Bool {
        sqlite3_table_column_metadata(db, nil, "users", "roles", nil, nil, nil, nil, nil) == SQLITE_OK
    }

    /// The `roles` column, or nothing where the table has none.
    private var rolesColumn: String { hasRolesColumn ? "roles" : "NULL" }

    /// Replaces the hash of `username` when it is still `old`; whether it did.
    func replaceHash(_ username: String, _ old: String, _ new: String) throws(SqliteFailure) -> Bool {
        let statement = try prepare(
            "UPDATE users SET password_hash = ?3 WHERE username = ?1 COLLATE NOCASE AND password_hash = ?2", persistent: false)
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_text(statement, 1, username, -1, sqliteTransient)
        sqlite3_bind_text(statement, 2, old, -1, sqliteTransient)
        sqlite3_bind_text(statement, 3, new, -1, sqliteTransient)
        let step = sqlite3_step(statement)
        guard step == SQLITE_DONE else { throw failure(step, doing: "re-hash the password of user '\(username)'") }
        return sqlite3_changes(db) > 0
    }

    func delete(_ username: String) throws(SqliteFailure) -> Bool {
        let statement = try prepare("DELETE FROM users WHERE username = ?1 COLLATE NOCASE", persistent: false)
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_text(statement, 1, username, -1, sqliteTransient)
        let step = sqlite3_step(statement)
        guard step == SQLITE_DONE else { throw failure(step, doing: "remove user '\(username)'") }
        return sqlite3_changes(db) > 0
    }

    func count() throws(SqliteFailure) -> Int {
        let statement = try prepare("SELECT count(*) FROM users", persistent: false)
        defer { sqlite3_finalize(statement) }
        let step = sqlite3_step(statement)
        guard step == SQLITE_ROW else { throw failure(step, doing: "count the users") }
        return Int(sqlite3_column_int64(statement, 0))
    }

    private func text(_ statement: OpaquePointer?, _ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: pointer)
    }
}

/// SQLite's SQLITE_TRANSIENT: copy the bound text now.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
