import Logging
import NIOCore
import SQLKit

/// A backend's `SQLDatabase` whose errors are worded by the backend: a route that reads a row
/// while the database is locked or down answers 503, and a broken statement's error names the
/// database.
///
/// In a transaction it keeps the first statement's error in `failures`: a transaction whose work
/// caught a statement's failure and went on is rolled back all the same
/// (``Database/transaction(_:)``).
struct WordedSqlDatabase: SQLDatabase {
    let inner: any SQLDatabase
    let backend: any DatabaseBackend
    var failures: Locked<(any Error)?>? = nil

    var logger: Logger { inner.logger }
    var eventLoop: any EventLoop { inner.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { inner.version }
    var dialect: any SQLDialect { inner.dialect }
    var queryLogLevel: Logger.Level? { inner.queryLogLevel }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        let backend = backend, failures = failures
        return inner.execute(sql: query, onRow).flatMapErrorThrowing { error in
            throw Self.record(backend.failure(error, doing: "run a statement"), in: failures)
        }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        do {
            try await inner.execute(sql: query, onRow)
        } catch {
            throw Self.record(backend.failure(error, doing: "run a statement"), in: failures)
        }
    }

    /// Keeps `error` in `failures` unless one is there already; returns it.
    private static func record(_ error: any Error, in failures: Locked<(any Error)?>?) -> any Error {
        failures?.withLock { if $0 == nil { $0 = error } }
        return error
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        let backend = backend, failures = failures
        return try await inner.withSession { session in
            try await closure(WordedSqlDatabase(inner: session, backend: backend, failures: failures))
        }
    }
}
