import SQLKit

extension SQLColumnUpdateBuilder {
    /// Sets every column of `row` (a `Codable` value, one property a column) but those named in
    /// `except`, usually the key: an update from a value. A `nil` property sets its column to
    /// `NULL`, so a value read, changed and written back is what the row holds.
    ///
    /// sql-kit's `set(model:)` leaves a `nil` property's column as it was, which cannot clear
    /// one, and sets the key with the rest.
    ///
    /// ```swift
    /// flag.note = nil
    /// try await database.sql.update("flags")
    ///     .set(row: flag, except: ["id"], keyEncodingStrategy: .convertToSnakeCase)
    ///     .where("id", .equal, flag.id).run()
    /// ```
    ///
    /// `except` names columns, as the table does (`created_at`, with `.convertToSnakeCase`).
    @discardableResult
    public func set(
        row: some Encodable, except: [String] = [], keyEncodingStrategy: SQLQueryEncoder.KeyEncodingStrategy = .useDefaultKeys
    ) throws -> Self {
        let encoder = SQLQueryEncoder(keyEncodingStrategy: keyEncodingStrategy, nilEncodingStrategy: .asNil)
        for (column, value) in try encoder.encode(row) where !except.contains(column) {
            set(SQLColumn(column), to: value)
        }
        return self
    }
}
