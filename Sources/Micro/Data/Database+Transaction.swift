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
    /// Run every statement of the transaction on the `sql` it is given. Other requests' statements
    /// never join it: on SQLite they wait for its write lock (up to the busy timeout, then a 503),
    /// and a statement of `work` sent to ``sql`` instead would wait for it too.
    public func transaction<T: Sendable>(_ work: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let backend = backend
        do {
            return try await backend.withSession { session in
                let sql = WordedSqlDatabase(inner: session, backend: backend)
                try await backend.beginTransaction(on: sql)
                let result: T
                do {
                    result = try await work(sql)
                } catch {
                    try? await session.raw("ROLLBACK").run()
                    throw WorkFailure(error: error)
                }
                try await sql.raw("COMMIT").run()
                return result
            }
        } catch let failure as WorkFailure {
            throw failure.error
        } catch {
            throw backend.failure(error, doing: "run a transaction")
        }
    }

    /// What the transaction's own work threw, kept apart from the database's faults, which are
    /// worded.
    private struct WorkFailure: Error {
        let error: any Error
    }
}
