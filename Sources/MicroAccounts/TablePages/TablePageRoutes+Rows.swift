import MicroAuth
import MicroCore
import SQLKit

extension TablePageRoutes {
    /// `GET /items/:id`: the row, or a 404 (for a user who may not see the table, too).
    func show(_ request: Request) async throws -> Response {
        let user = try permit(pages.roles.view, request, hidden: true)
        let id = try id(request)
        let row = try await row(id, request)
        if answersJson(request) { return try JsonBody(row).makeResponse(for: request) }
        let values = try text.values(of: row)
        var page: [String: Any] = [
            "title": name(of: row, id: id), "listLink": request.url(path),
            "fields": fields.map { ["label": $0.label, "text": text.text($0, in: values) ?? ""] },
        ]
        if may(pages.roles.edit, user) { page["editLink"] = request.url("\(path)/\(id)/edit") }
        if may(pages.roles.delete, user) {
            page["deleteAction"] = request.url("\(path)/\(id)/delete")
            page["deleteLabel"] = pages.archived == nil ? "Delete" : "Archive"
        }
        if let archived = pages.archived, TableRowText.bool(values[archived] ?? false) { page["archived"] = true }
        return try request.render(folder + "/show", page).makeResponse(for: request)
    }

    func may(_ roles: [String], _ user: User) -> Bool { roles.isEmpty || roles.contains(where: user.has(role:)) }

    /// The row the path names, for a user with one of `roles`: a 403 without them, and the 404
    /// of a missing row for a user who may not even see the table.
    func existing(_ request: Request, for roles: [String]) async throws -> (id: Int, row: Row) {
        try permit(roles, request, hidden: !may(pages.roles.view, try request.authenticate()))
        let id = try id(request)
        return (id, try await row(id, request))
    }

    /// `POST /items`: a row added from the form (or JSON), checked by the row type's rules and
    /// the declaration's ``TablePages/check``; refused, the form again with the messages.
    func create(_ request: Request) async throws -> Response {
        try permit(pages.roles.create, request)
        let row = try await decoded(request, before: nil, id: nil)
        // An empty optional is left to the column's default.
        let columns = try SQLQueryEncoder(keyEncodingStrategy: .convertToSnakeCase, nilEncodingStrategy: .default).encode(row)
            .filter { $0.0 != keyField.column && $0.0 != archivedColumn }
        let id = try await request.database.run("add a row to \(pages.table)") { sql in
            try await sql.insert(into: pages.table).columns(columns.map(\.0)).values(columns.map(\.1))
                .returning(SQLColumn(keyField.column)).first(decodingColumn: keyField.column, as: Int.self)
        }
        guard let id else { throw HttpError(.internalServerError, "The table \(pages.table) gave the new row no key.") }
        let added = try await self.row(id, request)
        let values = try text.values(of: added)
        try await record("created", added, id: id, detail: text.listing(values), request)
        if answersJson(request) {
            request.response.status = .created
            request.response.headers.replaceOrAdd(name: "Location", value: request.url("\(path)/\(id)"))
            return try JsonBody(added).makeResponse(for: request)
        }
        request.flash["notice"] = "\(name(of: added, id: id)) added."
        try request.redirect(to: "\(path)/\(id)")
    }

    /// `POST /items/:id` (or `PUT`): the row changed from the form (or JSON), checked as an
    /// added one; the key, and whether it is archived, stay as they were.
    func update(_ request: Request) async throws -> Response {
        let (id, before) = try await existing(request, for: pages.roles.edit)
        let row = try await decoded(request, before: before, id: id)
        let except = [keyField.column] + (archivedColumn.map { [$0] } ?? [])
        try await request.database.run("change a row of \(pages.table)") { sql in
            try await sql.update(pages.table).set(row: row, except: except, keyEncodingStrategy: .convertToSnakeCase)
                .where(keyField.column, .equal, SQLBind(id)).run()
        }
        let after = try await self.row(id, request)
        if let changes = text.changes(from: try text.values(of: before), to: try text.values(of: after)) {
            try await record("changed", after, id: id, detail: changes, request)
        }
        if answersJson(request) { return try JsonBody(after).makeResponse(for: request) }
        request.flash["notice"] = "\(name(of: after, id: id)) saved."
        try request.redirect(to: "\(path)/\(id)")
    }

    /// `POST /items/:id/delete` (or `DELETE`): the row removed, or archived when the
    /// declaration names an ``TablePages/archived`` field.
    func delete(_ request: Request) async throws -> Response {
        let (id, row) = try await existing(request, for: pages.roles.delete)
        let detail = text.listing(try text.values(of: row))
        try await request.database.run("remove a row of \(pages.table)") { sql in
            if let archivedColumn {
                try await sql.update(pages.table).set(SQLColumn(archivedColumn), to: SQLBind(true))
                    .where(keyField.column, .equal, SQLBind(id)).run()
            } else {
                try await sql.delete(from: pages.table).where(keyField.column, .equal, SQLBind(id)).run()
            }
        }
        try await record(archivedColumn == nil ? "deleted" : "archived", row, id: id, detail: detail, request)
        if answersJson(request) { return Response(status: .noContent) }
        request.flash["notice"] = "\(name(of: row, id: id)) \(archivedColumn == nil ? "deleted" : "archived")."
        try request.redirect(to: path)
    }

    /// The app event of a change: `items_created`, the row's name, the detail bounded.
    func record(_ change: String, _ row: Row, id: Int, detail: String, _ request: Request) async throws {
        try await request.recordAppEvent(
            "\(pages.table)_\(change)", subject: TableRowText.bounded(name(of: row, id: id), to: AppEventLimits.subjectLength),
            detail: TableRowText.bounded(detail, to: AppEventLimits.detailLength))
    }
}
