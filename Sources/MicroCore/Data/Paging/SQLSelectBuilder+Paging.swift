import SQLKit

extension SQLSelectBuilder {
    /// The numbered page `paging` asks for of this select, which gives the list's order:
    /// `LIMIT` and `OFFSET` added. `keyDecodingStrategy` reads the columns as sql-kit's
    /// `all(decoding:keyDecodingStrategy:)` does (`.convertFromSnakeCase`).
    ///
    /// ```swift
    /// let page = try await request.database.sql.select().columns("*").from("samples")
    ///     .orderBy("received", .descending).page(try request.paging(), decoding: Sample.self)
    /// ```
    public func page<Row: Decodable>(
        _ paging: Paging, decoding: Row.Type, keyDecodingStrategy: SQLRowDecoder.KeyDecodingStrategy = .useDefaultKeys
    ) async throws -> Page<Row> {
        paging.page(try await limit(paging.limit).offset(paging.offset).all(decoding: Row.self, keyDecodingStrategy: keyDecodingStrategy))
    }

    /// The keyed page `paging` asks for of this select (give it no order of its own), in the
    /// order of `column`, whose values are unique (an id): the rows after the request's `after`
    /// key or before its `before` key, found through the column's index however deep the
    /// page is, and right while rows are added before it. `key` reads a row's value of
    /// `column`; a cursor that is not such a value is a `400`. `keyDecodingStrategy` reads the
    /// columns as sql-kit's `all(decoding:keyDecodingStrategy:)` does.
    ///
    /// ```swift
    /// let page = try await request.database.sql.select().columns("*").from("samples")
    ///     .page(try request.paging(), orderedBy: "id", descending: true, decoding: Sample.self, key: \.id)
    /// ```
    public func page<Row: Decodable, Key: LosslessStringConvertible & Encodable & Sendable>(
        _ paging: Paging, orderedBy column: String, descending: Bool = false, decoding: Row.Type,
        keyDecodingStrategy: SQLRowDecoder.KeyDecodingStrategy = .useDefaultKeys, key: KeyPath<Row, Key>
    ) async throws -> Page<Row> {
        var backwards = false
        if let cursor = paging.cursor {
            guard let value = Key(cursor.key) else { throw HttpError(.badRequest, "The page's key is not one of this list's.") }
            let after = cursor == .after(cursor.key)
            backwards = !after
            // After a key in ascending order is above it; before it, or after it in descending
            // order, below it.
            _ = self.where(column, after != descending ? .greaterThan : .lessThan, value)
        }
        // Before the cursor the rows are read backwards, the nearest first, and put back in
        // order by the paging.
        let rows = try await orderBy(column, descending != backwards ? .descending : .ascending).limit(paging.limit)
            .all(decoding: Row.self, keyDecodingStrategy: keyDecodingStrategy)
        return paging.page(keyed: rows) { String(describing: $0[keyPath: key]) }
    }
}
