import VaporCSQLite
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
/// Names are kept in their enforced form (``Username``: `émile` for `ÉMILE`), so two spellings
/// of one name cannot both be rows: opening the table rewrites rows in another form, and stops
/// with an error naming the rows when two are one name or one is outside the rule.
///
/// An admin manages the users from a page through ``ManagedUserStore``; a disabled user's hash
/// is kept behind a `!` (``ManagedUserSql``), and a table made before that works as it is.
///
/// Safe to use from many requests at once: one connection, its statements used one at a time.
///
/// Faults while the app runs answer the sign-in with a 503 and heal by themselves: a database
/// locked by another writer is waited for up to `busyTimeout`; a file that became unreadable or
/// corrupt closes the connection, and the next look-up opens the file afresh; a file moved away
/// is reported missing; another file put in its place (a restored backup) is opened instead.
/// A read-only file works: the store only reads, unless you ``save(username:passwordHash:name:roles:)``.
public final class SqliteUserStore: PasswordUpgradingUserStore, UserListing, Reloadable {
    /// The database file.
    public let path: String
    /// How long a look-up waits for another connection's write lock before it gives up.
    public let busyTimeout: Duration
    private let connection: Locked<SqliteConnection?>
    let summary: Locked<Summary>
    /// How often a look-up found the database locked and waited: tests watch it.
    let lockWaits: LockWaits

    /// What the last full reading of the table found.
    struct Summary {
        var cost: Int?
        var slowestCost: Int?
        var users: Int
        /// Each user's stamp, by enforced name: what signed-in sessions are checked against.
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
        let opened: (SqliteConnection, Summary)
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
        guard let name = try? Username.enforce(username) else { return nil }
        return try withConnection { connection throws(SqliteFailure) in
            let found = try connection.findUser(name)
            // What the table says now is what the user's next request is checked against; set
            // while the connection is held, so no other change to the table can come between.
            summary.withLock { $0.stamps[name] = CredentialStamp.current(of: found) }
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
        let key = Username.key(username)
        return try withConnection { connection throws(SqliteFailure) in
            let replaced = try connection.replaceHash(key, old, new)
            if replaced { note(key, passwordHash: new, roles: try connection.findUser(key)?.user.roles ?? []) }
            return replaced
        }
    }

    /// A user's new hash, written by this store: their stamp, and the slowest cost.
    func note(_ username: String, passwordHash: String, roles: [String]) {
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
        let key: String
        do throws(UsernameError) {
            key = try Username.enforce(username)
        } catch {
            throw UserStoreError("\(path): \(error).")
        }
        try withConnection { connection throws(SqliteFailure) in
            try connection.upsert(key, passwordHash, name, roles: roles)
            note(key, passwordHash: passwordHash, roles: roles)
        }
    }

    /// Removes the user; whether there was one. Their sessions end on their next request.
    public func remove(username: String) throws -> Bool {
        let key = Username.key(username)
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
            try connection.withLock { (current: inout SqliteConnection?) throws(SqliteFailure) in
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
    func withConnection<T: Sendable>(_ work: (SqliteConnection) throws(SqliteFailure) -> T) throws(UserStoreError) -> T {
        // Time spent waiting for this mutex, behind a look-up that waits for a lock, counts too.
        let deadline = ContinuousClock.now + busyTimeout
        do throws(SqliteFailure) {
            return try connection.withLock { (current: inout SqliteConnection?) throws(SqliteFailure) -> T in
                guard let identity = FileIdentity(path) else {
                    throw SqliteFailure(path, SQLITE_CANTOPEN, "the users database is missing (moved or deleted?)")
                }
                let connection: SqliteConnection
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
    ) throws(SqliteFailure) -> (SqliteConnection, Summary) {
        let connection = try SqliteConnection(path: path, create: create, lockWaits: lockWaits, busyTimeout: busyTimeout)
        connection.deadline = deadline ?? ContinuousClock.now + busyTimeout
        if create { try connection.execute(schema) }
        try enforceUsernames(connection)
        return (connection, summary(try connection.checkUsers()))
    }

    /// Rewrites the rows whose name is not in its enforced form; throws, changing nothing,
    /// when two rows are one name or a name is outside the rule.
    private static func enforceUsernames(_ connection: SqliteConnection) throws(SqliteFailure) {
        let rows = try connection.usernameRows()
        let renames: [UsernameMigration.Row]
        do throws(UsernameMigration.Problem) {
            renames = try UsernameMigration.renames(of: rows)
        } catch {
            throw SqliteFailure(connection.path, SQLITE_CONSTRAINT, error.description)
        }
        if !renames.isEmpty { try connection.rename(renames) }
    }

    private static func summary(_ users: [StoredUser]) -> Summary {
        let costs = users.compactMap { Password.cost(of: $0.passwordHash) }.sorted()
        var stamps: [String: CredentialStamp] = [:]
        for user in users { stamps[user.user.username] = CredentialStamp.current(of: user) }
        return Summary(cost: costs.isEmpty ? nil : costs[costs.count / 2], slowestCost: costs.last, users: users.count, stamps: stamps)
    }
}
