import Dispatch
import Logging
import MicroCore
import SQLiteKit
import Synchronization

/// Users from the `users` table of a SQLite file, through Micro's data layer (sql-kit over
/// sqlite-kit, ``UserTable``'s statements, their values always bound):
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
/// Safe to use from many requests at once: one connection, the store's statements run one
/// operation at a time.
///
/// Faults while the app runs answer the sign-in with a 503 and heal by themselves: a database
/// locked by another writer is waited for up to `busyTimeout`; a file that became unreadable or
/// corrupt closes the connection, and the next look-up opens the file afresh; a file moved away
/// is reported missing; another file put in its place (a restored backup) is opened instead.
/// A read-only file works: the store only reads, unless you ``save(username:passwordHash:name:roles:email:passwordChangeDue:)``.
public final class SqliteUserStore: PasswordUpgradingUserStore, UserTableStore, Reloadable {
    /// The database file.
    public let path: String
    /// How long a look-up waits for another connection's write lock before it gives up.
    public let busyTimeout: Duration
    let backend: SqliteBackend
    let summary = Locked(UserSummary())
    /// Held while the store runs statements, with the opening of the file they last checked:
    /// a file opened afresh has its users checked again, as at start-up, before any statement.
    private let gate = Locked(0)

    /// When the stamps were last read again from the table (uptime nanoseconds), and whether a
    /// reading is under way: requests never wait for one.
    private let lastRefresh = Atomic<UInt64>(0)
    private let refreshing = Atomic<Bool>(false)
    /// How often signed-in requests have the stamps read again in the background.
    static let refreshInterval: UInt64 = 1_000_000_000
    /// Where the background readings wait for the table: a serial queue, with a thread of its
    /// own, so that they never hold up Dispatch's global queues.
    private static let refreshes = DispatchQueue(label: "micro.users.refresh")

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
        do {
            backend = try Blocking.run {
                try await SqliteBackend.open(path: path, create: create, busyTimeout: busyTimeout, subject: "users database", holding: "password hashes")
            }
        } catch {
            throw (error as? ConfigurationError) ?? ConfigurationError("\(path): \(error)")
        }
        do {
            if create {
                try Blocking.run { [backend] in
                    for statement in Self.schema { try await backend.sql.raw(SQLQueryString(statement)).run() }
                }
            }
            try run("read the users table") { _ in }
        } catch let error as UserStoreError {
            throw ConfigurationError(error.description)
        } catch {
            throw ConfigurationError(words(error, doing: "create the users table"))
        }
        lastRefresh.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
    }

    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS users (
            username TEXT NOT NULL UNIQUE COLLATE NOCASE,
            password_hash TEXT NOT NULL,
            name TEXT,
            roles TEXT,
            email TEXT,
            password_change_due BOOLEAN NOT NULL DEFAULT FALSE
        )
        """,
        "CREATE UNIQUE INDEX IF NOT EXISTS users_email_key ON users (lower(email))",
    ]

    public var source: String { path }

    /// Closes the file's connections; a look-up after opens it again. Await it before the
    /// process ends, so that no connection's thread outlives its store.
    public func shutdown() async {
        await backend.shutdown()
    }

    /// The user, or nil. Throws a ``UserStoreError`` saying what is wrong when the database
    /// cannot be read now (missing, locked for longer than `busyTimeout`, corrupt).
    public func find(username: String) throws -> StoredUser? {
        guard let name = try? Username.enforce(username) else { return nil }
        // What the table says now is what the user's next request is checked against.
        return try run("read the users table") { try await $0.find(name) }
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
        return try run("re-hash the password of user '\(username)'") { try await $0.replaceHash(key, old, with: new) }
    }

    private func refreshIfDue() {
        let now = DispatchTime.now().uptimeNanoseconds
        guard now &- lastRefresh.load(ordering: .relaxed) > Self.refreshInterval,
            refreshing.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        Self.refreshes.async { [self] in
            defer {
                lastRefresh.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
                refreshing.store(false, ordering: .releasing)
            }
            // Read and swapped in while the store's statements are held, so that no change this
            // store makes comes between. A table that cannot be read now keeps the stamps it
            // had: sign-in reports the fault.
            _ = try? run("read the users table") { [summary] table in
                let fresh = UserSummary(try await table.readAll(strict: false))
                summary.withLock { $0 = fresh }
            }
        }
    }

    /// Adds the user, or changes their hash, name, roles and (when one is given) address when
    /// they exist; `passwordChangeDue` marks a password the user did not choose. A table made
    /// before a column this needs gets it.
    public func save(
        username: String, passwordHash: String, name: String?, roles: [String] = [], email: String? = nil, passwordChangeDue: Bool = false
    ) throws {
        let key = try UserTable.key(username, passwordHash: passwordHash, roles: roles, source: path)
        let email = try UserTable.address(email, of: key, source: path)
        try run("save user '\(key)'") {
            try await $0.save(key, passwordHash: passwordHash, name: name, roles: roles, email: email, passwordChangeDue: passwordChangeDue)
        }
    }

    /// Removes the user; whether there was one. Their sessions end on their next request.
    public func remove(username: String) throws -> Bool {
        let key = Username.key(username)
        return try run("remove user '\(key)'") { try await $0.remove(key) }
    }

    /// How many users the table holds.
    public func count() throws -> Int {
        try run("count the users") { try await $0.count() }
    }

    /// Opens the file afresh and checks every user again, as at start-up; `SIGHUP` does this
    /// while ``/MicroCore/App/run()`` serves. On a problem, throws it and keeps the connection it had.
    public func reload() throws(ConfigurationError) {
        let fresh: UserSummary
        do {
            fresh = try gate.withLock { _ in
                try Blocking.run { [path, busyTimeout, backend] in
                    let other = try await SqliteBackend.open(
                        path: path, create: false, busyTimeout: busyTimeout, subject: "users database", holding: "password hashes")
                    do {
                        let table = UserTable(other.sql, source: path) { _, _ in }
                        try await table.enforceUsernames()
                        let users = try await table.readAll(strict: true)
                        await other.shutdown()
                        // The store's connection is opened afresh at its next statement.
                        await backend.disconnect()
                        return UserSummary(users)
                    } catch {
                        await other.shutdown()
                        throw error
                    }
                }
            }
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError(words(error, doing: "read the users table"))
        }
        summary.withLock { $0 = fresh }
    }

    /// `users from users.db (3 users)`, for the log after a reload.
    public var reloadSummary: String {
        let count = summary.withLock { $0.users }
        return "users from \(path) (\(count) user\(count == 1 ? "" : "s"))"
    }

    public func withTable<T: Sendable>(
        _ action: String, guarded: Bool, _ work: @escaping @Sendable (UserTable) async throws -> T
    ) async throws -> T {
        // SQLite runs one writer at a time: a guarded statement sees every change before it.
        // The gate and the statements are waited for on a thread of Dispatch's, never on one
        // of Swift's cooperative pool: awaiting callers (renames at once, a server's requests)
        // would otherwise hold every thread of that small pool while the work they wait for,
        // or a time limit, needs one.
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { () throws(UserStoreError) in try self.run(action, work) }) }
        }
    }

    /// Runs `work` on the table in the file now at `path`, waiting for it: the file opened
    /// afresh (after a failure, or another file took the path) has its usernames enforced and
    /// every user checked first. A failure other than a lock closes the connection, so that
    /// the next call starts afresh.
    func run<T: Sendable>(_ action: String, _ work: @escaping @Sendable (UserTable) async throws -> T) throws(UserStoreError) -> T {
        // Time spent waiting for the gate, behind a look-up that waits for a lock, counts too:
        // past the busy timeout, the caller is answered at once rather than waiting once more.
        let deadline = ContinuousClock.now + busyTimeout
        do {
            return try gate.withLock { (checked: inout Int) in
                guard ContinuousClock.now < deadline else { throw UserStoreError("\(path): \(backend.lockedProblem).") }
                let seen = checked
                let (result, generation) = try Blocking.run { [backend, summary, path] in
                    let table = UserTable(backend.sql, source: path) { name, user in
                        // The median stays that of the last full reading, which the background re-reads refresh.
                        summary.withLock { $0.set(name, user, keepingMedian: true) }
                    }
                    do {
                        let generation = try await backend.connect().generation
                        if generation != seen {
                            try await table.enforceUsernames()
                            let fresh = UserSummary(try await table.readAll(strict: true))
                            summary.withLock { $0 = fresh }
                        }
                        return (try await work(table), generation)
                    } catch {
                        if !SqliteBackend.isLock(error) { await backend.disconnect() }
                        throw error
                    }
                }
                checked = generation
                return result
            }
        } catch let error as UserStoreError {
            throw error
        } catch {
            throw UserStoreError(words(error, doing: action))
        }
    }

    /// What went wrong, in words that name the file.
    private func words(_ error: any Error, doing action: String) -> String {
        if let error = error as? SQLiteError, error.reason == .error, error.message.contains("no such table") || error.message.contains("no such column") {
            return "\(path): no usable `users` table (username, password_hash, name) (SQLite: \(error.message))."
        }
        if let error = error as? UserStoreError { return error.description }
        return backend.words(error, doing: action).description
    }
}
