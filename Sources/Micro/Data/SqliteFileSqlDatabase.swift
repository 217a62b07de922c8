import Logging
import NIOCore
import SQLiteKit

/// A ``SqliteBackend``'s statements as sql-kit's `SQLDatabase`: each on the connection to the
/// file now at the path (or on the `pinned` one, a transaction's), waiting for another
/// connection's lock up to the busy timeout, and closing a connection that failed otherwise,
/// so that the next statement opens the file afresh.
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

    /// When waiting for another connection's lock gives up, where a caller set it: the users
    /// store counts from before it queued behind its own statements, so that callers waiting
    /// one after the other each still give up within the busy timeout.
    @TaskLocal static var deadline: ContinuousClock.Instant?

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        let deadline = Self.deadline ?? ContinuousClock.now + backend.busyTimeout
        var attempts = 0
        while true {
            let connection: SQLiteConnection
            if let pinned { connection = pinned } else { connection = try await backend.connect().connection }
            do {
                try await connection.sql(queryLogLevel: nil).execute(sql: query, onRow)
                return
            } catch let error as SQLiteError where SqliteBackend.isLock(error.reason) {
                // A statement that met a lock did nothing: it runs again once the lock is gone.
                let left = deadline - ContinuousClock.now
                guard left > .zero else { throw error }
                if attempts == 0 { backend.lockWaits.add() }
                // 1, 2, 4, 8, then 10 ms at a time: a brief lock costs little, a long one few wake-ups.
                let step: Duration = attempts < 4 ? .milliseconds(1 << attempts) : .milliseconds(10)
                try await Task.sleep(for: min(step, left))
                attempts += 1
            } catch let error as SQLiteError {
                if pinned == nil, Self.breaksConnection(error.reason) { await backend.disconnect(connection) }
                throw error
            }
        }
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        if pinned != nil { return try await closure(self) }
        let connection = try await backend.connect().connection
        return try await closure(SqliteFileSqlDatabase(backend: backend, pinned: connection))
    }

    /// A fault of the file or the connection, rather than of the statement: the connection is
    /// opened afresh for the next statement.
    static func breaksConnection(_ reason: SQLiteError.Reason) -> Bool {
        switch reason {
        case .error, .constraint, .mismatch, .range, .tooBig, .abortByRollback, .interrupt, .full: false
        default: true
        }
    }
}
