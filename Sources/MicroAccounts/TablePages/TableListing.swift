import Foundation
import MicroCore
import SQLKit

/// What a table's list shows, as the request's query asks: `q` searched in the searched
/// fields, `sort` (one of the sortable fields) and `order=desc`, a value for each filtered
/// field, `archived=yes`. An unknown sort is the default order; a search or a filter longer
/// than any value could be is a `400`.
struct TableListing {
    let search: TextSearch
    let sort: TableField?
    let descending: Bool
    let filters: [(field: TableField, value: String)]
    let showsArchived: Bool
    let keyField: TableField
    let archivedColumn: String?
    /// The query's parameters the list's links keep (not its page).
    let kept: [(name: String, value: String)]

    init<Row>(_ request: Request, pages: TablePages<Row>, fields: [TableField], keyField: TableField) throws {
        let query = request.params.query
        func last(_ name: String) -> String? { query.last(where: { $0.name == name })?.value }
        let named = { (name: String) in fields.first { $0.name == name } }
        search = try TextSearch(last("q")?.trimmingCharacters(in: .whitespaces) ?? "", in: pages.searched.compactMap { named($0)?.column })
        let sortable = pages.sortable.compactMap(named)
        sort = last("sort").flatMap { name in sortable.first { $0.name == name } } ?? sortable.first
        descending = last("order") == "desc"
        var filters: [(TableField, String)] = []
        for field in pages.filtered.compactMap(named) {
            guard let value = last(field.name), !value.isEmpty else { continue }
            guard value.unicodeScalars.count <= TablePageRoutes<Row>.filterLength else {
                throw HttpError(.badRequest, "The filter '\(field.name)' is at most \(TablePageRoutes<Row>.filterLength) characters.")
            }
            filters.append((field, value))
        }
        self.filters = filters
        showsArchived = pages.archived != nil && last("archived") == "yes"
        self.keyField = keyField
        archivedColumn = pages.archived.flatMap(named)?.column
        let names = Set(["q", "sort", "order", "archived"] + pages.filtered)
        kept = query.filter { names.contains($0.name) }
    }

    /// `select` narrowed and ordered as the list asks.
    func apply(to select: SQLSelectBuilder) -> SQLSelectBuilder {
        var select = select.where(search)
        for (field, value) in filters { select = select.where(field.column, .equal, SQLBind(Self.bound(value, as: field.kind))) }
        if let archivedColumn, !showsArchived { select = select.where(archivedColumn, .equal, SQLBind(false)) }
        if let sort { select = select.orderBy(sort.column, descending ? .descending : .ascending) }
        return select.orderBy(keyField.column, descending ? .descending : .ascending)
    }

    /// A filter's text as the column's value: a number for a number's column (text that is no
    /// number matches nothing), `true` or `false` for a yes-or-no.
    private static func bound(_ value: String, as kind: TableField.Kind) -> any Encodable & Sendable {
        switch kind {
        case .integer: return Int(value) ?? Int.min
        case .decimal: return Double(value) ?? Double.nan
        case .bool: return ["yes", "true", "1", "on"].contains(value.lowercased())
        case .text, .date, .choice: return value
        }
    }

    /// The list's address at `path` with the query kept, changed by `changes` (a nil removes).
    func link(_ path: String, changing changes: [String: String?]) -> String {
        var items = kept.filter { changes[$0.name] == nil }
        for (name, value) in changes.sorted(by: { $0.key < $1.key }) { if let value { items.append((name, value)) } }
        guard !items.isEmpty else { return path }
        return path + "?" + items.map { PercentEncoding.encode($0.name) + "=" + PercentEncoding.encode($0.value) }.joined(separator: "&")
    }
}
