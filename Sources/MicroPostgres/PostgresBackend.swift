#if Postgres
import Logging
import MicroAuth
import MicroCore
import NIOCore
import PostgresKit

/// PostgreSQL as a ``Database``'s backend, through a ``SharedPostgresDatabase``: its pool, its
/// outage handling (statements fail at once with a 503 while the server is out of reach, and
/// work again once the listening connection is back), its advisory lock between instances.
final class PostgresBackend: DatabaseBackend {
    let shared: SharedPostgresDatabase
    let sql: any SQLDatabase

    init(_ shared: SharedPostgresDatabase) {
        self.shared = shared
        sql = PostgresPoolSqlDatabase(shared: shared)
    }

    var description: String { shared.url.description }

    func failure(_ error: any Error, doing what: String) -> any Error {
        if error is HttpError || error is DatabaseError || error is CancellationError { return error }
        if let error = error as? UserStoreError { return DatabaseError(error.description) }
        return DatabaseError("\(shared.url): cannot \(what): \(SharedPostgresDatabase.describe(error)).")
    }

    func withSession<T: Sendable>(_ work: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await shared.withConnection { connection in
            try await work(connection.sql(queryLogLevel: nil))
        }
    }

    func beginMigration(on session: any SQLDatabase) async throws {
        try await session.raw("BEGIN").run()
        // Instances starting together take turns; the lock goes with the transaction.
        try await session.raw("SELECT pg_advisory_xact_lock(\(bind: PostgresSchema.lockKey))").run()
    }

    func shutdown() async {
        shared.shutdown()
    }
}

/// The pool as sql-kit's `SQLDatabase`: each statement on a connection of the pool, bounded in
/// time, failing at once while PostgreSQL is known to be unreachable (``SharedPostgresDatabase/run(_:_:)``).
struct PostgresPoolSqlDatabase: SQLDatabase {
    let shared: SharedPostgresDatabase

    var logger: Logger { shared.logger }
    var eventLoop: any EventLoop { shared.eventLoop }
    var dialect: any SQLDialect { PostgresDialect() }
    var queryLogLevel: Logger.Level? { nil }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        eventLoop.makeFutureWithTask { try await execute(sql: query, onRow) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try await shared.run("run a statement") { connection in
            try await connection.sql(queryLogLevel: nil).execute(sql: query, onRow)
        }
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await shared.withConnection { connection in
            try await closure(connection.sql(queryLogLevel: nil))
        }
    }
}
#endif
