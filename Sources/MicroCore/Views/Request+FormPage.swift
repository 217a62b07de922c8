extension Request {
    /// Names, once at the top of a route, the page its form is shown again on when refused:
    /// from then on every refusal in the route (a ``FormError`` from ``decode(_:)`` or thrown,
    /// ``refuse(field:_:)``) renders `template` with `values` and `form` (the fields as sent,
    /// never a password, and each field's messages; see ``FormError/templateValue``), answered
    /// with the error's status (400 or 422). A client that sent JSON or asks for it gets the
    /// JSON error instead.
    ///
    /// ```swift
    /// app.post("/loans") { request in
    ///     request.formPage("loans/new", ["title": "New loan", "kinds": request.options("kind", kinds)])
    ///     let loan = try request.decode(NewLoan.self)             // refused: the page again
    ///     guard try await loans.find(serial: loan.serial) == nil else {
    ///         try request.refuse(field: "serial", "This serial is lent out already.")
    ///     }
    ///     guard try await people.exists(loan.borrower) else {
    ///         try request.refuse(field: "borrower", "No one has this name.")
    ///     }
    ///     ...
    /// }
    /// ```
    ///
    /// `values` are made only when a refusal shows the page. `formValues` are the first values
    /// of the fields the form did not send (see ``render(_:_:formValues:layout:)``).
    public func formPage(
        _ template: String, _ values: @autoclosure @escaping () throws -> [String: Any] = [:], formValues: [String: Any] = [:],
        layout: String? = "layout"
    ) {
        namedFormPage = .template(template, values: values, formValues: formValues, layout: layout)
    }

    /// Names, once at the top of a route, another route's page as the one its form was sent
    /// from (a sign-up form on the home page, posted to `/signups`): a refusal redirects there
    /// (303), and that page's `form` shows the messages and what was typed, once, as the flash
    /// shows a message. What is carried lives in the session cookie, so it is bounded: short
    /// values only (a long text is left out, its field shown empty beside its message), never
    /// a password; a form with long text is better shown again by its own route
    /// (``formPage(_:_:formValues:layout:)``). `path` is one of the app's own (`/`, `/notes`).
    ///
    /// ```swift
    /// app.get("/") { request in try request.render("home", ["title": "Home"]) }
    /// app.post("/signups") { request in
    ///     request.formPage(at: "/")
    ///     let signup = try request.decode(Signup.self)
    ///     ...
    /// }
    /// ```
    ///
    /// `request.options` on that page marks what the refused form chose, too.
    public func formPage(at path: String) {
        namedFormPage = .path(path)
    }

    /// Refuses the form for a reason the route found itself (a serial already lent out, an
    /// unknown id), with `message` next to `field`: the page named by ``formPage(_:_:formValues:layout:)``
    /// or ``formPage(at:)`` again, with what was typed; without one, a 422 naming the field. A
    /// client that sent or asks for JSON gets `{"error": ..., "fields": {field: message}}`.
    public func refuse(field: String, _ message: String) throws -> Never {
        var errors = FieldErrors()
        errors.add(field, message)
        try refuse(errors)
    }

    /// ``refuse(field:_:)`` with a message for each of several fields.
    public func refuse(_ errors: FieldErrors) throws -> Never {
        throw refusal(errors)
    }

    /// The error refusing the form with `errors`: 422, with the values sent (none for JSON).
    func refusal(_ errors: FieldErrors) -> FormError {
        let json = CsrfProtection.isJson(headers.first(name: "Content-Type"))
        return FormError(errors, values: json ? [] : params.form, status: .unprocessableEntity, source: json ? .json : .form)
    }

    /// `error` answered as the route's form page says, as a halt; thrown again for a client
    /// that wants JSON, or a path that is not the app's own.
    func showFormPage(_ error: FormError) throws -> Never {
        guard let formPage = namedFormPage, !(prefersJson || error.sentJson) else { throw error }
        switch formPage {
        case .template(let template, let values, let formValues, let layout):
            let page = try render(template, try values(), form: error, formValues: formValues, layout: layout)
            try halt(page.makeResponse(for: self))
        case .path(let path):
            // Only a path of the app's own: a refusal must not send the browser elsewhere.
            guard path.hasPrefix("/"), !path.hasPrefix("//"), !path.hasPrefix("/\\") else {
                logger.error("formPage(at: \(path)) is not one of the app's own paths; the refusal is answered in place.")
                throw error
            }
            try session.set(CarriedForm.sessionKey, CarriedForm(error))
            try redirect(to: path)
        }
    }

    /// The refused form a redirect brought to this page (``formPage(at:)``), taken out of the
    /// session the first time it is asked for, so that it is shown once.
    var carriedForm: FormError? {
        if let takenForm { return takenForm }
        // A request without a session cookie has none loaded, and nothing carried.
        guard let session = loadedSession, session.contains(CarriedForm.sessionKey) else {
            takenForm = .some(nil)
            return nil
        }
        let form = session.get(CarriedForm.sessionKey, as: CarriedForm.self)?.formError
        session.remove(CarriedForm.sessionKey)
        takenForm = .some(form)
        return form
    }
}
