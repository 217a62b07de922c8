import MicroAuth
import MicroCore

/// A table administered in the browser and over JSON, from one declaration, as Django's admin
/// and Flask-Admin give one: a list (paging, search, sort, filters, CSV), a page per row, and
/// forms to add and change rows, built from the row type; deletion, or archiving; every change
/// an app event (who, which row, before and after); each action behind the roles it names.
///
/// ```swift
/// struct Item: Codable, Sendable, Validatable {
///     var id: Int?                    // the key: nil until the table gives one
///     var name: String
///     var kind: Kind                  // a String enumeration: a select
///     var location: String?
///     var bookable: Bool
///     func validate(into errors: inout FieldErrors) { errors.check("name", name, .notBlank, .length(max: 80)) }
/// }
///
/// var items = TablePages(Item.self, table: "items", title: "Items")
/// items.searched = ["name", "location"]
/// items.sortable = ["name", "kind"]
/// items.filtered = ["kind"]
/// items.roles = TableRoles(create: ["editor"], edit: ["editor"], delete: ["admin"])
/// app.tablePages("/items", items)
/// ```
///
/// The pages are `GET /items` (JSON with `Accept: application/json` or a token, CSV at
/// `/items/export.csv`), `GET /items/new`, `POST /items`, `GET /items/:id`,
/// `GET /items/:id/edit`, `POST /items/:id` and `POST /items/:id/delete` (`PUT` and `DELETE`
/// for JSON clients). Each renders a built-in template in the app's layout, which
/// `views/items/list.mustache`, `show.mustache` and `form.mustache` override one by one.
///
/// The table is the app's own (made by its migration); its columns are the row's properties
/// in snake case (`dueAt` is `due_at`), and its key an integer the database gives.
public struct TablePages<Row: Codable & Sendable>: Sendable {
    /// The table's name.
    public var table: String
    /// The list's title; a row's page is titled by ``describe``.
    public var title: String
    /// The key's property (and column): an optional integer, nil in a row not yet added.
    public var key = "id"
    /// The properties the list shows, in order; all but the key when nil.
    public var listed: [String]?
    /// The properties a search looks in (case-insensitive "contains"); no search box when empty.
    public var searched: [String] = []
    /// The properties the list sorts by when the reader asks (the first is the default order,
    /// after which the key); by the key alone when empty.
    public var sortable: [String] = []
    /// The properties the list filters on by exact value (`?kind=laptop`), with a select each.
    public var filtered: [String] = []
    /// Who may do what.
    public var roles = TableRoles()
    /// Rows on one page of the list (and of the JSON list).
    public var pageSize = 25
    /// A `Bool` property that deletion sets rather than removing the row: the list then leaves
    /// archived rows out unless asked (`?archived=yes`).
    public var archived: String?
    /// The app's own checks of a row before it is added or changed, beyond its
    /// ``/MicroCore/Validatable`` ones: `request.refuse(field:_:)` shows the form again with
    /// the message beside the field. Given the row and, for a change, the row as it was.
    public var check: (@Sendable (_ row: Row, _ before: Row?, _ request: Request) async throws -> Void)?
    /// A row's name on its page and in the app events (`item 12`); the table's singular and
    /// the key when nil.
    public var describe: (@Sendable (Row) -> String)?
    /// The folder of the templates an app writes to override the built-in ones: the table's
    /// name when nil.
    public var templates: String?

    /// Pages for `table`, whose rows are `Row`s.
    public init(_ type: Row.Type, table: String, title: String) {
        self.table = table
        self.title = title
    }
}
