import MicroAuth
import MicroCore
import SQLKit

extension TablePageRoutes {
    /// `GET /items`: a page of rows, searched, filtered and sorted as the query asks; JSON for
    /// a script, with the next page in its `Link` header.
    func list(_ request: Request) async throws -> Response {
        let user = try permit(pages.roles.view, request)
        let listing = try listing(request)
        let paging = try request.paging(size: pages.pageSize)
        let rows = try await request.database.run("list \(pages.table)") { sql in
            try await listing.apply(to: sql.select().column("*").from(pages.table)).limit(paging.limit).offset(paging.offset).all()
        }
        let page = paging.page(rows)
        if answersJson(request) {
            let decoder = SQLRowDecoder(keyDecodingStrategy: .convertFromSnakeCase)
            var response = try JsonBody(try page.items.map { try $0.decode(model: Row.self, with: decoder) }).makeResponse(for: request)
            if let next = page.next { response.headers.add(name: "Link", value: "<\(next)>; rel=\"next\"") }
            return response
        }
        let base = request.url(path)
        let shown = listedFields
        let columns = shown.map { field -> [String: Any] in
            var column: [String: Any] = ["label": field.label, "name": field.name]
            if pages.sortable.contains(field.name) {
                let sorted = listing.sort == field
                column["sortLink"] = listing.link(base, changing: ["sort": field.name, "order": sorted && !listing.descending ? "desc" : nil])
                if sorted { column["sorted"] = listing.descending ? "descending" : "ascending" }
            }
            return column
        }
        let items = page.items.map { row -> [String: Any] in
            let id = text.text(keyField, in: row) ?? ""
            return ["id": id, "link": request.url("\(path)/\(id)"), "cells": shown.map { ["text": text.text($0, in: row) ?? ""] }]
        }
        var values: [String: Any] = [
            "title": pages.title, "columns": columns, "rows": items, "page": page.links, "action": base,
            "q": listing.search.text, "searchable": !pages.searched.isEmpty,
            "filters": filterValues(listing, request),
            "csvLink": listing.link(request.url(path + "/export.csv"), changing: [:]),
        ]
        if pages.roles.create.isEmpty || pages.roles.create.contains(where: user.has(role:)) { values["newLink"] = request.url(path + "/new") }
        if pages.archived != nil {
            values["archivedLink"] = listing.link(base, changing: ["archived": listing.showsArchived ? nil : "yes"])
            values["showsArchived"] = listing.showsArchived
        }
        return try request.render(folder + "/list", values).makeResponse(for: request)
    }

    /// The filters' selects: each field's choices (a yes-or-no's two), the chosen one marked.
    private func filterValues(_ listing: TableListing, _ request: Request) -> [[String: Any]] {
        pages.filtered.compactMap { name -> [String: Any]? in
            guard let field = fields.first(where: { $0.name == name }) else { return nil }
            let chosen = listing.filters.first { $0.field == field }?.value ?? ""
            let choices: [String] =
                switch field.kind {
                case .choice(let values): values
                case .bool: ["yes", "no"]
                default: []
                }
            return [
                "name": field.name, "label": field.label, "value": chosen, "hasChoices": !choices.isEmpty,
                "options": choices.map { ["value": $0, "selected": $0 == chosen] },
            ]
        }
    }

    /// `GET /items/export.csv`: every row the list's query asks for, up to a bound, as CSV.
    func csv(_ request: Request) async throws -> Response {
        try permit(pages.roles.view, request)
        let listing = try listing(request)
        let rows = try await request.database.run("export \(pages.table)") { sql in
            try await listing.apply(to: sql.select().column("*").from(pages.table)).limit(Self.csvLimit).all()
        }
        let lines = rows.map { row in fields.map { text.text($0, in: row) ?? "" } }
        var response = Response(contentType: "text/csv; charset=utf-8", body: TableCsv.document(header: fields.map(\.name), rows: lines))
        response.headers.replaceOrAdd(name: "Content-Disposition", value: "attachment; filename=\"\(pages.table).csv\"")
        return response
    }
}
