import CSQLite
import Foundation
import Synchronization

/// Users from the `users` table of a SQLite file, through prepared, parameterised statements:
///
/// ```sql
/// CREATE TABLE users (
///     username TEXT NOT NULL UNIQUE COLLATE NOCASE,
///     password_hash TEXT NOT NULL,
///     name TEXT
/// );
/// ```
///
/// Safe to use from many requests at once: one connection, its statements used one at a time.
public final class SqliteUserStore: UserStore {
    /// The database file.
    public let path: String
    private let connection: Mutex<Connection>
    private let cost: Mutex<Int?>

    /// Opens the users table in `path`. With `create`, makes the file and the table when missing
    /// (for tools that add users); otherwise a missing file or table is an error. Every stored
    /// hash is checked: a malformed one is an error naming the user.
    public init(path: String, create: Bool = false) throws(ConfigurationError) {
        self.path = path
        let connection = try Connection(path: path, create: create)
        if create { try connection.execute(Self.schema) }
        let costs = try connection.checkUsers().sorted()
        cost = Mutex(costs.isEmpty ? nil : costs[costs.count / 2])
        self.connection = Mutex(connection)
    }

    static let schema = """
        CREATE TABLE IF NOT EXISTS users (
            username TEXT NOT NULL UNIQUE COLLATE NOCASE,
            password_hash TEXT NOT NULL,
            name TEXT
        )
        """

    public func find(username: String) throws -> StoredUser? {
        try connection.withLock { connection in
            try connection.findUser(username.lowercased())
        }
    }

    /// The median cost of the hashes found when the store was opened.
    public var typicalCost: Int? { cost.withLock { $0 } }

    /// Adds the user, or changes their hash and name when they exist.
    public func save(username: String, passwordHash: String, name: String?) throws {
        guard Password.isValidHash(passwordHash) else {
            throw UserStoreError("\(path): not a bcrypt hash for user '\(username)'.")
        }
        try connection.withLock { try $0.upsert(username.lowercased(), passwordHash, name) }
    }

    /// How many users the table holds.
    public func count() throws -> Int {
        try connection.withLock { try $0.count() }
    }
}

/// One SQLite connection and its prepared statements.
private final class Connection {
    private var db: OpaquePointer?
    private var findStatement: OpaquePointer?
    private var upsertStatement: OpaquePointer?
    let path: String

    init(path: String, create: Bool) throws(ConfigurationError) {
        self.path = path
        if !create, !FileManager.default.fileExists(atPath: path) {
            throw ConfigurationError("\(path): no such users database.")
        }
        let flags = (create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        db = handle
        guard status == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            throw ConfigurationError("\(path): cannot open the users database: \(message).")
        }
        sqlite3_busy_timeout(handle, 2000)
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        sqlite3_finalize(findStatement)
        sqlite3_finalize(upsertStatement)
        sqlite3_close_v2(db)
    }

    private var lastError: String { db.map { String(cString: sqlite3_errmsg($0)) } ?? "no connection" }

    func execute(_ sql: String) throws(ConfigurationError) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw ConfigurationError("\(path): \(lastError).")
        }
    }

    private func prepare(_ sql: String) throws(UserStoreError) -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else {
            throw UserStoreError("\(path): \(lastError).")
        }
        return statement
    }

    /// Checks the table has the columns and every hash is bcrypt; returns their costs.
    func checkUsers() throws(ConfigurationError) -> [Int] {
        let statement: OpaquePointer
        do {
            statement = try prepare("SELECT rowid, username, password_hash FROM users")
        } catch {
            throw ConfigurationError("\(path): no usable `users` table (username, password_hash, name): \(lastError).")
        }
        defer { sqlite3_finalize(statement) }
        var costs: [Int] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return costs }
            guard step == SQLITE_ROW else { throw ConfigurationError("\(path): cannot read the users table: \(lastError).") }
            let row = sqlite3_column_int64(statement, 0)
            let username = text(statement, 1) ?? ""
            guard let hash = text(statement, 2), Password.isValidHash(hash) else {
                throw ConfigurationError("\(path): users row \(row) (user '\(username)'): password_hash is not a bcrypt hash ($2a$, $2b$ or $2y$).")
            }
            if let cost = Password.cost(of: hash) { costs.append(cost) }
        }
    }

    func findUser(_ username: String) throws(UserStoreError) -> StoredUser? {
        if findStatement == nil {
            findStatement = try prepare("SELECT username, password_hash, name FROM users WHERE username = ?1 COLLATE NOCASE")
        }
        let statement = findStatement
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        sqlite3_bind_text(statement, 1, username, Int32(username.utf8.count), sqliteTransient)
        switch sqlite3_step(statement) {
        case SQLITE_ROW:
            guard let name = text(statement, 0), let hash = text(statement, 1) else { return nil }
            return StoredUser(user: User(username: name, name: text(statement, 2)), passwordHash: hash)
        case SQLITE_DONE:
            return nil
        default:
            throw UserStoreError("\(path): cannot read the users table: \(lastError).")
        }
    }

    func upsert(_ username: String, _ hash: String, _ name: String?) throws(UserStoreError) {
        if upsertStatement == nil {
            upsertStatement = try prepare("""
                INSERT INTO users (username, password_hash, name) VALUES (?1, ?2, ?3)
                ON CONFLICT(username) DO UPDATE SET password_hash = excluded.password_hash, name = excluded.name
                """)
        }
        let statement = upsertStatement
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        sqlite3_bind_text(statement, 1, username, -1, sqliteTransient)
        sqlite3_bind_text(statement, 2, hash, -1, sqliteTransient)
        if let name { sqlite3_bind_text(statement, 3, name, -1, sqliteTransient) } else { sqlite3_bind_null(statement, 3) }
        guard sqlite3_step(statement) == SQLITE_DONE else {
            throw UserStoreError("\(path): cannot save user '\(username)': \(lastError).")
        }
    }

    func count() throws(UserStoreError) -> Int {
        let statement = try prepare("SELECT count(*) FROM users")
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw UserStoreError("\(path): \(lastError).") }
        return Int(sqlite3_column_int64(statement, 0))
    }

    private func text(_ statement: OpaquePointer?, _ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: pointer)
    }
}

/// SQLite's SQLITE_TRANSIENT: copy the bound text now.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
