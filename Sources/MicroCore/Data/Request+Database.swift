extension Request {
    /// The database the app uses (``App/use(_:)`` with a ``Database``).
    ///
    /// ```swift
    /// let rows = try await request.database.sql.select().columns("id", "title").from("notes").all()
    /// ```
    public var database: Database {
        get throws {
            guard let database = service(Database.self) else {
                throw DatabaseError("This app has no database: add one with app.use(database) before it starts.")
            }
            return database
        }
    }
}
