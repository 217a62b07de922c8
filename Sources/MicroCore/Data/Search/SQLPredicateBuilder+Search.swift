import SQLKit

extension SQLPredicateBuilder {
    /// Keeps the rows where any of `columns` contains `text`, whatever its case: a
    /// ``TextSearch``, the same on SQLite and PostgreSQL, `%`, `_` and `\` taken literally.
    /// An empty text (or only white space) keeps every row; one longer than
    /// ``TextSearch/maxLength`` is a `400`.
    ///
    /// ```swift
    /// let flags = try await request.database.sql.select().columns("*").from("flags")
    ///     .where(searching: request.params["q"] ?? "", in: ["name", "note"])
    ///     .orderBy("name").all(decoding: Flag.self)
    /// ```
    @discardableResult
    public func `where`(searching text: String, in columns: [String]) throws(HttpError) -> Self {
        self.where(try TextSearch(text, in: columns))
    }

    /// Keeps the rows that `search` matches (nothing is added when it matches every row).
    @discardableResult
    public func `where`(_ search: TextSearch) -> Self {
        search.matchesEverything ? self : self.where(search as any SQLExpression)
    }
}
