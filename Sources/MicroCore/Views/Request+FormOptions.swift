extension Request {
    /// The options of the form field `name` for a template, each ``FormOption/chosen`` as the
    /// form should show it: on a form sent back (a `POST`, `PUT` or `PATCH`, shown again after a
    /// refusal), the values it sent, none when it sent none (every checkbox left unticked);
    /// on its first showing, `chosen` (the record's current values).
    ///
    /// ```swift
    /// let statuses = [("received", "Received"), ("tested", "Tested"), ("archived", "Archived")]
    /// app.get("/samples/:code/edit") { request in
    ///     try request.render("samples/edit", ["statuses": request.options("status", statuses, chosen: [sample.status])])
    /// }
    /// ```
    ///
    /// Check the value sent against the same list (`errors.check("status", status, .oneOf(...))`):
    /// a form can send any value, not only the ones it offered.
    public func options(_ name: String, _ choices: [(value: String, label: String)], chosen: [String] = []) -> [FormOption] {
        let sent = method == .POST || method == .PUT || method == .PATCH
        let picked = Set(sent ? params.all(name) : chosen)
        return choices.map { FormOption(value: $0.value, label: $0.label, chosen: picked.contains($0.value)) }
    }

    /// ``options(_:_:chosen:)`` of options whose labels are their values.
    public func options(_ name: String, _ values: [String], chosen: [String] = []) -> [FormOption] {
        options(name, values.map { ($0, $0) }, chosen: chosen)
    }
}
