import Foundation
import MicroAuth
import MicroCore
import SQLKit

/// The routes of one ``TablePages`` declaration, over the app's database (sql-kit).
struct TablePageRoutes<Row: Codable & Sendable>: Sendable {
    let pages: TablePages<Row>
    let path: String
    /// Every field of the row, the key's included.
    let fields: [TableField]
    let keyField: TableField
    /// The fields a form holds: all but the key and the archived flag.
    let formFields: [TableField]
    let listedFields: [TableField]
    /// The archived flag's column, for a table that archives.
    let archivedColumn: String?
    let folder: String
    let text: TableRowText

    /// The routes of `pages`, whose row has `fields` (checked to hold the key, ``check(_:path:)``),
    /// worked out once for every request.
    init(pages: TablePages<Row>, path: String, fields: [TableField]) {
        self.pages = pages
        self.path = path
        self.fields = fields
        keyField = fields.first { $0.name == pages.key }!
        formFields = fields.filter { $0.name != pages.key && $0.name != pages.archived }
        listedFields = pages.listed.map { listed in listed.compactMap { name in fields.first { $0.name == name } } } ?? formFields
        archivedColumn = pages.archived.flatMap { name in fields.first { $0.name == name }?.column }
        folder = pages.templates ?? pages.table
        text = TableRowText(fields: fields)
    }
    /// The longest filter value or sort name read from a query: longer can match nothing.
    static var filterLength: Int { 200 }
    /// The most rows one CSV export holds.
    static var csvLimit: Int { 10_000 }

    func install(in app: App) {
        app.require(AccountsService.self, problem: "Table pages record every change as an app event: app.use(Accounts(...)) as well.")
        app.addBuiltInTemplates([
            folder + "/list": TablePageTemplates.list, folder + "/show": TablePageTemplates.show,
            folder + "/form": TablePageTemplates.form,
        ])
        let base = path == "/" ? "" : path
        app.get(base + "/?") { request in try await list(request) }
        app.get(base + "/export.csv") { request in try await csv(request) }
        app.get(base + "/new") { request in try await newForm(request) }
        app.post(base + "/?") { request in try await create(request) }
        app.get(base + "/:id") { request in try await show(request) }
        app.get(base + "/:id/edit") { request in try await editForm(request) }
        app.post(base + "/:id") { request in try await update(request) }
        app.put(base + "/:id") { request in try await update(request) }
        app.post(base + "/:id/delete") { request in try await delete(request) }
        app.delete(base + "/:id") { request in try await delete(request) }
    }

    // MARK: Who may

    /// Authenticates, then refuses (403) a user with none of `roles`; a `hidden` refusal is the
    /// 404 of a row that does not exist, so that the pages do not tell which rows do.
    @discardableResult
    func permit(_ roles: [String], _ request: Request, hidden: Bool = false) throws -> User {
        let user = try request.authenticate()
        guard !roles.isEmpty else { return user }
        guard roles.contains(where: user.has(role:)) else {
            if hidden { throw notFound }
            return try request.authorize(anyOf: roles)
        }
        return user
    }

    var notFound: HttpError { HttpError(.notFound, "No such \(singular).") }

    /// Whether the request is answered in JSON: it asks for it, or a script signed it in with a
    /// token (or HTTP Basic).
    func answersJson(_ request: Request) -> Bool {
        request.wantsJson || ![.session, .none].contains(request.authentication.kind)
    }

    /// The table's name for one row: `items` is `item`.
    var singular: String { pages.table.hasSuffix("s") ? String(pages.table.dropLast()) : pages.table }

    /// A row's name on its page and in events.
    func name(of row: Row, id: Int) -> String { pages.describe?(row) ?? "\(singular) \(id)" }

    // MARK: Reading

    /// The id in the path: a number, or no such row.
    func id(_ request: Request) throws -> Int {
        guard let text = request.params["id"], text.count <= 18, let id = Int(text), id > 0 else { throw notFound }
        return id
    }

    /// The row with key `id`, or a 404.
    func row(_ id: Int, _ request: Request) async throws -> Row {
        let found = try await request.database.run("read a row of \(pages.table)") { sql in
            try await sql.select().column("*").from(pages.table).where(keyField.column, .equal, SQLBind(id))
                .first(decoding: Row.self, keyDecodingStrategy: .convertFromSnakeCase)
        }
        guard let found else { throw notFound }
        return found
    }

    /// The list's query as the request asks for it: searched, filtered, sorted.
    func listing(_ request: Request) throws -> TableListing {
        try TableListing(request, pages: pages, fields: fields, keyField: keyField)
    }
}
