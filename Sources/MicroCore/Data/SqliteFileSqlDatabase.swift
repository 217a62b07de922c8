import Logging
import NIOCore
import SQLiteKit

/// A ``SqliteBackend``'s statements as sql-kit's `SQLDatabase`: each on the shared connection to
/// the file now at the path (or on the `pinned` one, a session's), closing a connection that
/// failed for another reason than a lock, so that the next statement opens the file afresh.
struct SqliteFileSqlDatabase: SQLDatabase {
    let backend: SqliteBackend
    let pinned: SQLiteConnection?

    var logger: Logger { SqliteBackend.quiet }
    var eventLoop: any EventLoop { backend.eventLoop }
    var dialect: any SQLDialect { backend.dialect }
    var queryLogLevel: Logger.Level? { nil }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        eventLoop.makeFutureWithTask { try await execute(sql: query, onRow) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        let connection: SQLiteConnection
        let shared: Bool
        if let own = pinned ?? backend.sessionConnection {
            (connection, shared) = (own, false)
        } else {
            try await backend.waitForOpenSessions()
            (connection, shared) = (try await backend.connect().connection, true)
        }
        do {
            // Another connection's lock is waited for inside SQLite (its busy timeout, set on
            // each connection), at whichever step meets it, the commit's included: a statement
            // is never run again here, which could hand its rows over twice.
            //
            // SQLite's thread pool makes the rows; they are handed to `onRow` here, on the
            // awaiting task, through a lock. Handed over by the pool's resume alone, the rows'
            // memory can cross threads by the concurrency runtime's uninstrumented atomics
            // alone, and the thread sanitizer reported their reading as a race with their making.
            let rows = Locked<[any SQLRow]>([])
            try await connection.sql(queryLogLevel: nil).execute(sql: query) { row in
                rows.withLock { $0.append(row) }
            }
            for row in rows.withLock({ $0 }) { onRow(row) }
        } catch let error as SQLiteError {
            if shared, Self.breaksConnection(error.reason) { await backend.disconnect(connection) }
            throw error
        }
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        if pinned != nil { return try await closure(self) }
        return try await backend.session(closure)
    }

    /// A fault of the file or the connection, rather than of the statement or another
    /// connection's lock: the connection is opened afresh for the next statement.
    static func breaksConnection(_ reason: SQLiteError.Reason) -> Bool {
        if SqliteBackend.isLock(reason) { return false }
        return switch reason {
        case .error, .constraint, .mismatch, .range, .tooBig, .abortByRollback, .interrupt, .full: false
        default: true
        }
    }
}
