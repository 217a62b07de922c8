import MicroAuth
import MicroCore

extension App {
    /// Serves ``TablePages`` at `path` (`/items`): the list, a page per row, the forms, CSV and
    /// JSON. A declaration that does not fit its row type (a property it names that the type
    /// has not, a key that is no optional integer, a type whose fields are not plain) stops the
    /// app at start with the problem and the line that declared it.
    ///
    /// ```swift
    /// app.tablePages("/items", TablePages(Item.self, table: "items", title: "Items"))
    /// ```
    public func tablePages<Row: Codable & Sendable>(
        _ path: String, _ pages: TablePages<Row>, file: String = #fileID, line: UInt = #line
    ) {
        let site = "\(file):\(line)"
        switch TablePageRoutes<Row>.check(pages, path: path) {
        case .failure(let problem): addProblem("\(site): \(problem.message)")
        case .success(let fields): TablePageRoutes(pages: pages, path: path, fields: fields).install(in: self)
        }
    }
}

extension TablePageRoutes {
    /// The row type's fields, once the declaration is found to fit them.
    static func check(_ pages: TablePages<Row>, path: String) -> Result<[TableField], TableFieldProblem> {
        let fields: [TableField]
        switch TableFieldProbe.fields(of: Row.self) {
        case .failure(let problem): return .failure(problem)
        case .success(let found): fields = found
        }
        func problem(_ message: String) -> Result<[TableField], TableFieldProblem> { .failure(TableFieldProblem(message: message)) }
        let identifier = pages.table.unicodeScalars
        guard !identifier.isEmpty, identifier.count <= 40, identifier.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }) else {
            return problem("the table name '\(pages.table)' is 1 to 40 lowercase ASCII letters, digits and '_'.")
        }
        guard path.hasPrefix("/"), !path.contains(":"), !path.contains("*"), path == "/" || !path.hasSuffix("/") else {
            return problem("the table pages' path '\(path)' begins with '/', has no parameters and no '/' at its end.")
        }
        guard let key = fields.first(where: { $0.name == pages.key }), key.kind == .integer, key.isOptional else {
            return problem("\(Row.self) has no optional integer key '\(pages.key)' (`var \(pages.key): Int?`, nil until the table gives one).")
        }
        let names = Set(fields.map(\.name))
        let named = (pages.listed ?? []) + pages.searched + pages.sortable + pages.filtered + (pages.archived.map { [$0] } ?? [])
        if let unknown = named.first(where: { !names.contains($0) }) {
            return problem("\(Row.self) has no property '\(unknown)', which the table pages of '\(pages.table)' name.")
        }
        if let searched = pages.searched.first(where: { name in fields.first { $0.name == name }?.kind != .text }) {
            return problem("'\(searched)' is searched, but only text is: it is not a String.")
        }
        if let archived = pages.archived, fields.first(where: { $0.name == archived })?.kind != .bool {
            return problem("the archived field '\(archived)' is no Bool.")
        }
        guard pages.pageSize > 0, pages.pageSize <= 500 else { return problem("a page holds 1 to 500 rows, not \(pages.pageSize).") }
        return .success(fields)
    }
}
