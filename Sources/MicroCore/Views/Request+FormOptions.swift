extension Request {
    /// The options of the form field `name` for a template, each ``FormOption/chosen`` as the
    /// form should show it: when the request's form body carries the field (the form sent back,
    /// shown again after a refusal), the values it sent; so when a refused form a redirect
    /// brought back does (``formPage(at:)``); otherwise (its first showing, or another form of
    /// the page sent) `chosen`, the record's current values.
    ///
    /// ```swift
    /// let statuses = [("received", "Received"), ("tested", "Tested"), ("archived", "Archived")]
    /// app.get("/samples/:code/edit") { request in
    ///     try request.render("samples/edit", ["statuses": request.options("status", statuses, chosen: [sample.status])])
    /// }
    /// ```
    ///
    /// A browser sends nothing for checkboxes left unticked: put a hidden field of the same name
    /// and an empty value before them (`<input type="hidden" name="tags" value="">`), so that a
    /// form sent back with every box unticked shows them unticked. Empty values mark nothing,
    /// and ``FieldRule/each(oneOf:)`` lets them by; drop them from the decoded list.
    ///
    /// Check the value sent against the same list (`errors.check("status", status, .oneOf(...))`):
    /// a form can send any value, not only the ones it offered.
    public func options(_ name: String, _ choices: [(value: String, label: String)], chosen: [String] = []) -> [FormOption] {
        var sent = params.form.filter { $0.name == name }.map(\.value)
        if sent.isEmpty, let carried = carriedForm { sent = carried.values.filter { $0.name == name }.map(\.value) }
        let picked = Set(sent.isEmpty ? chosen : sent.filter { !$0.isEmpty })
        return choices.map { FormOption(value: $0.value, label: $0.label, chosen: picked.contains($0.value)) }
    }

    /// The options of `values`, each read as itself; see ``options(_:_:chosen:)``.
    public func options(_ name: String, _ values: [String], chosen: [String] = []) -> [FormOption] {
        options(name, values.map { ($0, $0) }, chosen: chosen)
    }
}
