import Logging
import NIOCore
import SQLKit

/// A backend's `SQLDatabase` whose errors are worded by the backend: a route that reads a row
/// while the database is locked or down answers 503, and a broken statement's error names the
/// database.
struct WordedSqlDatabase: SQLDatabase {
    let inner: any SQLDatabase
    let backend: any DatabaseBackend

    var logger: Logger { inner.logger }
    var eventLoop: any EventLoop { inner.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { inner.version }
    var dialect: any SQLDialect { inner.dialect }
    var queryLogLevel: Logger.Level? { inner.queryLogLevel }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        let backend = backend
        return inner.execute(sql: query, onRow).flatMapErrorThrowing { throw backend.failure($0, doing: "run a statement") }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        do {
            try await inner.execute(sql: query, onRow)
        } catch {
            throw backend.failure(error, doing: "run a statement")
        }
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        let backend = backend
        return try await inner.withSession { session in
            try await closure(WordedSqlDatabase(inner: session, backend: backend))
        }
    }
}
