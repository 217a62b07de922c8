import SQLKit

extension Database {
    /// Runs `work` in a transaction on a connection of its own: committed when `work` returns,
    /// rolled back when it throws (its error is thrown on, unchanged).
    ///
    /// ```swift
    /// try await request.database.transaction { sql in
    ///     try await sql.update("items").set("stock", to: SQLRaw("stock - 1")).where("id", .equal, id).run()
    ///     try await sql.insert(into: "loans").columns("item", "user").values(SQLBind(id), SQLBind(user.username)).run()
    /// }
    /// ```
    ///
    /// - Other requests' statements never join it. On SQLite, transactions take turns (SQLite
    ///   writes one at a time), and other requests' statements wait while one is open, each up to
    ///   the busy timeout, then a 503.
    /// - A statement of `work` that fails fails the transaction, even when `work` goes on: it is
    ///   rolled back and the statement's error thrown, on both databases (PostgreSQL cannot go on
    ///   after a failed statement, and would roll back at the commit without a word). Write
    ///   `ON CONFLICT DO NOTHING` rather than catching a conflict.
    /// - A transaction opened inside another of the same database, in the same task, is part of
    ///   the outer one, as Sequel's and Django's are; so are the statements of ``run(_:_:)`` (a
    ///   store's), on both databases. On SQLite, ``sql`` used inside it runs in it too.
    public func transaction<T: Sendable>(_ work: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        if let open = Self.openTransaction, open.database == ObjectIdentifier(self), open.isOpen.withLock({ $0 }) { return try await work(open.sql) }
        let backend = backend
        let database = ObjectIdentifier(self)
        do {
            return try await backend.withSession { session in
                let failures = Locked<(any Error)?>(nil)
                let sql = WordedSqlDatabase(inner: session, backend: backend, failures: failures)
                let open = OpenTransaction(database: database, sql: sql)
                do {
                    try await backend.beginTransaction(on: sql)
                    let result = try await Self.$openTransaction.withValue(open) {
                        do { return try await work(sql) } catch { throw WorkFailure(error: error) }
                    }
                    open.isOpen.withLock { $0 = false }
                    if let failure = failures.withLock({ $0 }) { throw failure }
                    try await sql.raw("COMMIT").run()
                    return result
                } catch {
                    open.isOpen.withLock { $0 = false }
                    // In a task of its own, which a cancelled request's cannot stop: a pooled
                    // connection must not go back to its pool inside the transaction.
                    await Task { try? await session.raw("ROLLBACK").run() }.value
                    throw error
                }
            }
        } catch let failure as WorkFailure {
            throw failure.error
        } catch {
            throw backend.failure(error, doing: "run a transaction")
        }
    }

    /// The transaction open in this task (and the tasks it made), with its database. A task made
    /// inside it may outlive it: `isOpen` tells it the transaction ended.
    struct OpenTransaction: Sendable {
        let database: ObjectIdentifier
        let sql: any SQLDatabase
        let isOpen = Locked(true)
    }

    @TaskLocal static var openTransaction: OpenTransaction?

    /// What the transaction's own work threw, kept apart from the database's faults, which are
    /// worded.
    private struct WorkFailure: Error {
        let error: any Error
    }
}
