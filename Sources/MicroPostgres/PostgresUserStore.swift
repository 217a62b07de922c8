#if Postgres
import Foundation
import MicroAuth
import MicroCore
import NIOConcurrencyHelpers
import PostgresKit

/// Users from the `users` table of a ``SharedPostgresDatabase``, created when missing:
///
/// ```sql
/// CREATE TABLE users (username text NOT NULL, password_hash text NOT NULL, name text);
/// CREATE UNIQUE INDEX users_username_key ON users (lower(username));
/// ```
///
/// Names are kept in their enforced form (``/MicroAuth/Username``: `émile` for `ÉMILE`): opening the
/// store rewrites rows in another form, and stops naming the rows when two are one name or
/// one is outside the rule.
///
/// An admin manages the users from a page through `ManagedUserStore`; a disabled user's hash
/// is kept behind a `!` (`ManagedUserSql`), and a table made before that works as it is. The
/// statements are Micro's `UserTable`, the same as SQLite's.
///
/// A sign-in reads the user from the table, so a user added or changed takes effect at once.
/// Signed-in requests are checked against each user's ``/MicroAuth/CredentialStamp`` kept in memory,
/// which a trigger's notification updates on every instance when a row changes, whoever
/// changed it (another instance, `add-user`, `remove-user`, plain SQL), and which is read
/// afresh whenever the listening connection (re)connects.
public final class PostgresUserStore: PasswordUpgradingUserStore, UserTableStore {
    /// The database.
    public let database: SharedPostgresDatabase
    let summary = NIOLockedValueBox(UserSummary())

    /// The store over `database`'s `users` table. Every stored hash is checked: a malformed one
    /// is an error naming the row (``/MicroCore/ConfigurationError``), as is a database that cannot be read.
    public init(_ database: SharedPostgresDatabase) async throws(ConfigurationError) {
        self.database = database
        let summary = summary
        let url = database.url
        let table = { @Sendable (connection: PostgresConnection) in
            UserTable(connection.sql(queryLogLevel: nil), source: url.description) { name, user in summary.withLockedValue { $0.set(name, user) } }
        }
        database.subscribe(SharedPostgresDatabase.Subscriber(
            prefix: "u",
            notified: { name, connection in
                if name == "*" {
                    let users = try await table(connection).readAll(strict: false)
                    summary.withLockedValue { $0 = UserSummary(users) }
                } else {
                    // A change this instance made to the user while the row was read is newer
                    // than the reading, which must not put back what was before it.
                    let name = String(name)
                    let version = summary.withLockedValue { $0.version(of: name) }
                    let reading = UserTable(connection.sql(queryLogLevel: nil), source: url.description) { name, user in
                        summary.withLockedValue { $0.set(name, user, readAt: version) }
                    }
                    _ = try await reading.find(name, strict: false)
                }
            },
            reload: { connection in
                let users = try await table(connection).readAll(strict: false)
                summary.withLockedValue { $0 = UserSummary(users) }
            }))
        do {
            let users = try await withTable("read the users table", guarded: false) { table in
                try await table.enforceUsernames()
                return try await table.readAll(strict: true)
            }
            summary.withLockedValue { $0 = UserSummary(users) }
        } catch {
            throw ConfigurationError((error as? UserStoreError)?.description ?? "\(url): cannot read the users table: \(error)")
        }
    }

    public var source: String { database.url.description }

    /// The user, or nil. Waits on the database (bounded by its ``SharedPostgresDatabase/queryTimeout``):
    /// call it off the event loops. Sign-in uses ``find(username:using:)``, which holds no thread.
    public func find(username: String) throws -> StoredUser? {
        try Blocking.run { try await self.find(username: username, using: PasswordHasher.shared) }
    }

    /// The user, or nil, read from the table now; what the table says now is what the user's
    /// next request is checked against.
    public func find(username: String, using hasher: PasswordHasher) async throws -> StoredUser? {
        guard let name = try? Username.enforce(username) else { return nil }
        return try await withTable("read the users table", guarded: false) { try await $0.find(name) }
    }

    /// The median cost of the table's hashes, kept current by the database's notifications.
    public var typicalCost: Int? { summary.withLockedValue { $0.cost } }

    /// The highest cost of the table's hashes, kept current by the database's notifications.
    public var slowestCost: Int? { summary.withLockedValue { $0.slowestCost } }

    /// From memory, kept current by the database's notifications.
    public func isCurrent(_ stamp: CredentialStamp, username: String) -> Bool {
        summary.withLockedValue { $0.stamps[username] == stamp }
    }

    public func replacePasswordHash(of username: String, _ old: String, with new: String) throws -> Bool {
        try Blocking.run { try await self.replacePasswordHash(of: username, old, with: new, using: PasswordHasher.shared) }
    }

    public func replacePasswordHash(of username: String, _ old: String, with new: String, using hasher: PasswordHasher) async throws -> Bool {
        guard Password.isValidHash(new) else { throw UserStoreError("\(database.url): not a bcrypt hash for user '\(username)'.") }
        let key = Username.key(username)
        return try await withTable("re-hash a password", guarded: false) { try await $0.replaceHash(key, old, with: new) }
    }

    /// Adds the user, or changes their hash, name, roles and (when one is given) address when
    /// they exist; `passwordChangeDue` marks a password the user did not choose.
    public func save(
        username: String, passwordHash: String, name: String?, roles: [String] = [], email: String? = nil, passwordChangeDue: Bool = false
    ) async throws {
        let key = try UserTable.key(username, passwordHash: passwordHash, roles: roles, source: source)
        let email = try UserTable.address(email, of: key, source: source)
        try await withTable("save user '\(key)'", guarded: false) {
            try await $0.save(key, passwordHash: passwordHash, name: name, roles: roles, email: email, passwordChangeDue: passwordChangeDue)
        }
    }

    /// Removes the user; whether there was one. Their sessions end on every instance.
    public func remove(username: String) async throws -> Bool {
        let key = Username.key(username)
        return try await withTable("remove user '\(key)'", guarded: false) { try await $0.remove(key) }
    }

    /// How many users the table holds.
    public func count() async throws -> Int {
        try await withTable("count the users", guarded: false) { try await $0.count() }
    }

    /// Runs `work` on a connection of the pool. A `guarded` change runs in a transaction after
    /// locking the table against other writers, so that two such changes at once run one
    /// after the other and the second sees the first: in PostgreSQL's default isolation each
    /// would otherwise read the table as it was before both. Readers (sign-ins) are not held
    /// up. Every other instance learns of a change from the trigger's notification.
    public func withTable<T: Sendable>(
        _ action: String, guarded: Bool, _ work: @escaping @Sendable (UserTable) async throws -> T
    ) async throws -> T {
        let summary = summary
        let source = source
        return try await database.run(action) { connection in
            let table = UserTable(connection.sql(queryLogLevel: nil), source: source) { name, user in
                summary.withLockedValue { $0.set(name, user) }
            }
            guard guarded else { return try await work(table) }
            // What the transaction changed is kept in memory once it committed: a reading
            // begun in between (another change's notification) would find the rows as they
            // were, and keep that, being newer than a change made before it.
            let changed = NIOLockedValueBox<[(name: String, user: StoredUser?)]>([])
            let guardedTable = UserTable(connection.sql(queryLogLevel: nil), source: source) { name, user in
                changed.withLockedValue { $0.append((name, user)) }
            }
            let result: T
            do {
                result = try await connection.withTransaction(logger: SharedPostgresDatabase.quiet) { connection in
                    try await connection.query("LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE", logger: SharedPostgresDatabase.quiet)
                    return try await work(guardedTable)
                }
            } catch let failure as PostgresTransactionError where failure.rollbackError == nil {
                // The work's own error, rolled back: judged as the work's (a store's refusal is
                // no outage, nor a reason to run the work again), not as the transaction's.
                guard let error = failure.closureError else { throw failure }
                throw error
            }
            let committed = changed.withLockedValue { $0 }
            summary.withLockedValue { summary in
                for change in committed { summary.set(change.name, change.user) }
            }
            return result
        }
    }
}
#endif
