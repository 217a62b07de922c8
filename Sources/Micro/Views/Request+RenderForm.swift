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
    /// On the first visit there is no `form`, so the inputs are empty; to fill them (an edit
    /// page), pass `["form": ["values": ["title": note.title]]]`.
    public func decode<T: Decodable>(
        _ type: T.Type = T.self, orRender template: String, _ values: [String: Any] = [:], layout: String? = "layout"
    ) throws -> T {
        do {
            return try decode(type)
        } catch let error as FormError where !(prefersJson || error.sentJson) {
            let page = try render(template, values, form: error, layout: layout)
            try halt(page.makeResponse(for: self))
        }
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
        response.status = error.status
        var values = values
        values["form"] = error.templateValue
        return try render(name, values, layout: layout)
    }
}
