extension Request {
    /// ``decode(_:)``, or, when the input is refused, the form's page again: `template` rendered
    /// with `values` and `form` (the values as sent and a message next to each field at fault;
    /// see ``FormError/templateValue``), answered with the error's status (400 or 422). A client
    /// that sent JSON or asks for it gets the JSON error instead.
    ///
    /// ```swift
    /// app.get("/notes/new") { request in
    ///     try request.render("notes/new", ["title": "New note"])
    /// }
    /// app.post("/notes") { request in
    ///     let note = try request.decode(NewNote.self, orRender: "notes/new", ["title": "New note"])
    ///     try notes.add(note)
    ///     try request.redirect(to: "/notes")
    /// }
    /// ```
    ///
    /// And `views/notes/new.mustache` (values and messages are HTML-escaped, as always):
    ///
    /// ```mustache
    /// <form method="post" action="/notes">
    ///   {{{csrfField}}}
    ///   <label for="title">Title</label>
    ///   <input id="title" name="title" value="{{form.values.title}}"
    ///     {{#form.errors.title}}aria-invalid="true" aria-describedby="title-error"{{/form.errors.title}}>
    ///   {{#form.errors.title}}<p class="field-error" id="title-error">{{.}}</p>{{/form.errors.title}}
    ///   <label><input type="checkbox" name="pager" {{#form.values.pager}}checked{{/form.values.pager}}> Page</label>
    ///   <button>Save</button>
    /// </form>
    /// ```
    ///
    /// On the first visit `form` is empty, so the inputs are; to fill them (an edit page, a
    /// default), render with ``render(_:_:formValues:layout:)``. A route that refuses in several
    /// ways names its page once instead: ``formPage(_:_:formValues:layout:)``.
    ///
    /// `values` are made only when the form is shown again.
    public func decode<T: Decodable>(
        _ type: T.Type = T.self, orRender template: String, _ values: @autoclosure () throws -> [String: Any] = [:],
        layout: String? = "layout"
    ) throws -> T {
        do {
            return try decode(type)
        } catch let error as FormError where !(prefersJson || error.sentJson) {
            try showAgain(error, template, try values(), layout: layout)
        }
    }

    /// Refuses the form for a reason the route found itself (a serial already lent out, an
    /// unknown id): the form's page again, as a failed ``decode(_:orRender:_:layout:)`` shows
    /// it, with `message` next to `field` and what was typed kept; 422. A client that sent or
    /// asks for JSON gets `{"error": ..., "fields": {field: message}}`. `values` are made only
    /// here, when the page is shown.
    ///
    /// ```swift
    /// app.post("/loans") { request in
    ///     let loan = try request.decode(NewLoan.self, orRender: "loans/new", ["title": "New loan"])
    ///     guard try await loans.find(serial: loan.serial) == nil else {
    ///         try request.refuse(field: "serial", "This serial is lent out already.", orRender: "loans/new", ["title": "New loan"])
    ///     }
    ///     ...
    /// }
    /// ```
    public func refuse(
        field: String, _ message: String, orRender template: String, _ values: @autoclosure () throws -> [String: Any] = [:],
        layout: String? = "layout"
    ) throws -> Never {
        var errors = FieldErrors()
        errors.add(field, message)
        try refuse(errors, orRender: template, try values(), layout: layout)
    }

    /// ``refuse(field:_:orRender:_:layout:)`` with a message for each of several fields.
    public func refuse(
        _ errors: FieldErrors, orRender template: String, _ values: @autoclosure () throws -> [String: Any] = [:],
        layout: String? = "layout"
    ) throws -> Never {
        let error = refusal(errors)
        guard !(prefersJson || error.sentJson) else { throw error }
        try showAgain(error, template, try values(), layout: layout)
    }

    /// The form's page again with `error`'s messages and values, answered at once.
    private func showAgain(_ error: FormError, _ template: String, _ values: [String: Any], layout: String?) throws -> Never {
        let page = try render(template, values, form: error, layout: layout)
        try halt(page.makeResponse(for: self))
    }

    /// Renders `name` as ``render(_:_:layout:)`` does, with `form` from `error` (see
    /// ``FormError/templateValue``), and sets the response's status to the error's.
    ///
    /// ```swift
    /// do {
    ///     let note = try request.decode(NewNote.self)
    ///     ...
    /// } catch let error as FormError {
    ///     return try request.render("notes/new", ["title": "New note"], form: error)
    /// }
    /// ```
    public func render(_ name: String, _ values: [String: Any] = [:], form error: FormError, layout: String? = "layout") throws -> String {
        try render(name, values, form: error, formValues: [:], layout: layout)
    }

    /// ``render(_:_:form:layout:)``, with `formValues` for the fields the form did not send.
    func render(_ name: String, _ values: [String: Any], form error: FormError, formValues: [String: Any], layout: String?) throws -> String {
        response.status = error.status
        var values = values
        values["form"] = error.templateValue(first: formValues)
        return try render(name, values, layout: layout)
    }
}
