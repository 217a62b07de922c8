extension RouteGroup {
    /// Names, once for every route of the group, the page a refused form is shown again on (a
    /// group of a record's forms that all live on its edit page), as each route's
    /// ``Request/formPage(_:_:formValues:layout:)`` would; a route may name another.
    ///
    /// ```swift
    /// app.group("/loans") { loans in
    ///     loans.formPage("loans/edit") { request in ["title": "Loan \(request.params["serial"] ?? "")"] }
    ///     loans.post("/:serial/extend") { request in ... try request.refuse(field: "days", "At most 90 days.") ... }
    ///     loans.post("/:serial/transfer") { request in ... }
    /// }
    /// ```
    public func formPage(
        _ template: String, layout: String? = "layout", file: String = #fileID, line: UInt = #line,
        _ values: @escaping @Sendable (Request) throws -> [String: Any] = { _ in [:] }
    ) {
        before(file: file, line: line) { request in request.formPage(template, try values(request), layout: layout) }
    }

    /// Names, once for every route of the group, the page at `path` its forms are sent from, as
    /// each route's ``Request/formPage(at:)`` would.
    public func formPage(at path: String, file: String = #fileID, line: UInt = #line) {
        before(file: file, line: line) { request in request.formPage(at: path) }
    }
}
