/// Who may do what on a table's pages: each action names the roles that may (any one of them
/// is enough); an empty list lets every signed-in user.
///
/// ```swift
/// pages.roles = TableRoles(create: ["editor"], edit: ["editor"], delete: ["admin"])
/// ```
public struct TableRoles: Sendable, Equatable {
    /// Who sees the list, a row, its CSV and its JSON.
    public var view: [String]
    /// Who adds a row.
    public var create: [String]
    /// Who changes a row.
    public var edit: [String]
    /// Who deletes (or archives) a row.
    public var delete: [String]

    /// Every signed-in user may do what the lists leave empty.
    public init(view: [String] = [], create: [String] = [], edit: [String] = [], delete: [String] = []) {
        self.view = view
        self.create = create
        self.edit = edit
        self.delete = delete
    }
}
