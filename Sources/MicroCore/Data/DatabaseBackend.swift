import SQLKit

/// What a kind of database brings to a ``Database``: its connections as sql-kit's
/// `SQLDatabase`, and what is its own (how a fault reads, how migrations take turns between
/// instances). Micro has SQLite's; `MicroPostgres` adds PostgreSQL's.
public protocol DatabaseBackend: Sendable {
    /// Where the database is, for messages: a file's path, a URL without its password.
    var description: String { get }
    /// The database's connections. Its errors are the driver's; ``Database`` words them.
    var sql: any SQLDatabase { get }
    /// What `error`, thrown by the driver while doing `what`, means for a request: a 503
    /// ``HttpError`` while the database is out of reach for a while (locked, down), else a
    /// ``DatabaseError`` in words that name the database.
    func failure(_ error: any Error, doing what: String) -> any Error
    /// Runs `work` on one connection of its own (a transaction's statements must share it, and
    /// no other request's may join them).
    func withSession<T: Sendable>(_ work: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    /// Begins a transaction on `session`, for ``Database/transaction(_:)``.
    func beginTransaction(on session: any SQLDatabase) async throws
    /// Begins the transaction a migration runs in, on `session`, taking whatever lock keeps
    /// two instances from running one migration at once.
    func beginMigration(on session: any SQLDatabase) async throws
    /// Makes the shared connections see what migrations changed, on their own connections.
    func migrated() async
    /// Closes the connections; statements fail afterwards.
    func shutdown() async
}

extension DatabaseBackend {
    /// Nothing: a database whose connections read the schema anew for each statement.
    public func migrated() async {}

    /// A plain `BEGIN`.
    public func beginTransaction(on session: any SQLDatabase) async throws {
        try await session.raw("BEGIN").run()
    }
}
