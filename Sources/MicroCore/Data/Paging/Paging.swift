/// Which page of a list a request asks for, read by ``Request/paging(size:maxPage:)``: a page
/// number (`?page=3`, for a list read with `LIMIT` and `OFFSET`) or a cursor (`?after=812` or
/// `?before=790`, for a list read by key, which stays right while rows are added).
///
/// ```swift
/// app.get("/samples") { request in
///     let paging = try request.paging(size: 25)
///     let page = try await request.database.sql.select().columns("*").from("samples")
///         .page(paging, orderedBy: "id", descending: true, decoding: Sample.self, key: \.id)
///     return try request.render("samples", ["samples": page.items, "page": page.links])
/// }
/// ```
///
/// A list kept elsewhere reads ``offset`` and ``limit`` rows (one more than a page: it tells
/// whether a next page exists) and hands them to ``page(_:)``.
public struct Paging: Sendable {
    /// How many items a page shows.
    public let size: Int
    /// The page number, from 1; 1 when the request gives a cursor.
    public let number: Int
    /// The cursor the request gives, when it gives one.
    public let cursor: PagingCursor?
    /// The highest page number: a numbered page there links to no next one.
    public let maxPage: Int
    /// The request's path and its other query parameters, which each page's link keeps.
    let link: PageLink

    /// The items a numbered page skips.
    public var offset: Int { (number - 1) * size }
    /// How many items to read: one more than ``size``, which only tells whether there is a next
    /// page.
    public var limit: Int { size + 1 }

    /// The numbered page from `rows`: at most ``limit`` items read from ``offset``.
    public func page<Item>(_ rows: [Item]) -> Page<Item> {
        Page(
            items: Array(rows.prefix(size)), number: number,
            next: rows.count > size && number < maxPage ? link.to([("page", String(number + 1))]) : nil,
            previous: number > 1 ? link.to(number == 2 ? [] : [("page", String(number - 1))]) : nil)
    }

    /// The keyed page from `rows`, read in the list's order after the ``cursor`` (or from the
    /// start without one), or in the reverse order before it; `key` gives an item's cursor.
    public func page<Item>(keyed rows: [Item], key: (Item) -> String) -> Page<Item> {
        switch cursor {
        case nil, .after:
            let items = Array(rows.prefix(size))
            let previous: String? =
                if cursor == nil { nil } else { items.first.map { link.to([("before", key($0))]) } ?? link.to([]) }
            return Page(
                items: items, number: nil,
                next: rows.count > size ? items.last.map { link.to([("after", key($0))]) } : nil, previous: previous)
        case .before:
            // Read backwards from the cursor: the nearest rows first.
            let items = Array(rows.prefix(size).reversed())
            return Page(
                items: items, number: nil,
                next: items.last.map { link.to([("after", key($0))]) } ?? link.to([]),
                previous: rows.count > size ? items.first.map { link.to([("before", key($0))]) } : nil)
        }
    }
}
