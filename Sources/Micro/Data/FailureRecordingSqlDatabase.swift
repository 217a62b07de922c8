import Logging
import NIOCore
import SQLKit

/// A transaction's statements, keeping the first one's error: a transaction whose work caught a
/// statement's failure and went on is rolled back all the same (``Database/transaction(_:)``).
struct FailureRecordingSqlDatabase: SQLDatabase {
    let inner: any SQLDatabase
    private let failure = Locked<(any Error)?>(nil)

    init(inner: any SQLDatabase) {
        self.inner = inner
    }

    /// The first statement's error, if one failed.
    var firstFailure: (any Error)? { failure.withLock { $0 } }

    var logger: Logger { inner.logger }
    var eventLoop: any EventLoop { inner.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { inner.version }
    var dialect: any SQLDialect { inner.dialect }
    var queryLogLevel: Logger.Level? { inner.queryLogLevel }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        let failure = failure
        return inner.execute(sql: query, onRow).flatMapErrorThrowing { error in
            failure.withLock { if $0 == nil { $0 = error } }
            throw error
        }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        do {
            try await inner.execute(sql: query, onRow)
        } catch {
            failure.withLock { if $0 == nil { $0 = error } }
            throw error
        }
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await closure(self)
    }
}
