import Mustache

extension Request {
    /// Renders `views/NAME.mustache` inside `views/layout.mustache` (at its `{{{yield}}}`), and
    /// sets the content type to `text/html; charset=utf-8` unless the route set another.
    ///
    /// Every template also sees, without the route passing them: `flash` (the messages, e.g.
    /// `{{flash.notice}}`), `flashMessages` (a list of `{kind, message}`), `csrfToken`,
    /// `csrfField` (a ready hidden input: `{{{csrfField}}}`), `path`, and what plugins add
    /// (``App/addTemplateValue(_:file:line:_:)``: authentication adds who is signed in). Values are
    /// HTML-escaped unless the template uses triple braces (`{{{value}}}`, or `{{& value}}`):
    /// each `& < > " '` becomes an entity by bytes, whatever characters surround it (see
    /// ``Html/escape(_:)``), in partials, sections and inherited blocks too. A template may
    /// switch to unescaped text with `{{% CONTENT_TYPE: TEXT}}`.
    ///
    /// ```swift
    /// app.get("/signin/?") { request in
    ///     try request.render("signin", ["title": "Sign In"])
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: The template, relative to the views folder, without `.mustache`.
    ///   - values: What the template shows; these win over the automatic values.
    ///   - layout: Another layout, or nil for none.
    public func render(_ name: String, _ values: [String: Any] = [:], layout: String? = "layout") throws -> String {
        try render(name, values, formValues: [:], layout: layout)
    }

    /// ``render(_:_:layout:)``, with the first values of a form's fields (an edit page's record,
    /// a default), as `request.options` gives a select its first choice: the template shows a
    /// text field's value as `{{form.values.NAME}}`, which is `formValues[NAME]` on the form's
    /// first showing and what was sent when the form is shown again (when the request's form
    /// body, or the refused form a redirect brought back, carries the field). A nil is no value.
    /// A checkbox's first value is a `Bool` (`{{#form.values.pager}}checked{{/form.values.pager}}`);
    /// put a hidden field of its name with an empty value before it, as for `request.options`,
    /// so that a box unticked is sent, and shown, unticked.
    ///
    /// ```swift
    /// app.get("/notes/:id/edit") { request in
    ///     let note = try await notes.find(request.params["id"])
    ///     return try request.render("notes/edit", ["title": "Edit note"], formValues: ["title": note.title, "body": note.body])
    /// }
    /// ```
    ///
    /// And in `views/notes/edit.mustache`: `<input name="title" value="{{form.values.title}}">`.
    public func render(_ name: String, _ values: [String: Any] = [:], formValues: [String: Any], layout: String? = "layout") throws -> String {
        let context = TemplateContext(request: self, values: values, formValues: formValues)
        if response.contentType == nil { response.contentType = "text/html; charset=utf-8" }
        return try services.views.render(name, context: context, layout: layout, layoutRequired: layout != "layout")
    }
}

/// The CSRF token (or its hidden field), made only if a template shows it: a page without a
/// form then starts no session and sets no cookie.
final class LazyCsrfValue: MustacheCustomRenderable {
    private let request: Request
    private let asField: Bool

    init(request: Request, asField: Bool) {
        self.request = request
        self.asField = asField
    }

    var renderText: String {
        let token = request.csrfToken
        // The token is base64url; escaped all the same, as everything Micro puts in a page.
        return asField ? "<input type=\"hidden\" name=\"\(CsrfToken.fieldName)\" value=\"\(Html.escape(token))\">" : token
    }

    var isNull: Bool { false }
}
