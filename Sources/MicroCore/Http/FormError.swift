import NIOHTTP1

/// Input that ``Request/decode(_:)`` refused: a field that does not decode (400) or a value
/// that ``Validatable/validate(into:)`` found wrong (422), with a message for each field and
/// the values as they were sent, to show the form again.
///
/// Not caught, it answers like an ``HttpError`` of its status, with ``message``; a client that
/// wants JSON (its `Accept`, or a JSON body) gets
/// `{"error": "...", "fields": {"severity": "Not a whole number."}}`. Caught, it fills the
/// form again: see ``Request/decode(_:orRender:_:layout:)`` and
/// ``Request/render(_:_:form:layout:)``.
///
/// Throw one yourself for a check that needs more than the value, such as a lookup:
///
/// ```swift
/// var errors = FieldErrors()
/// errors.add("title", "A note has this title already.")
/// throw FormError(errors, values: request.params.form)
/// ```
public struct FormError: Error, Sendable, CustomStringConvertible {
    /// Where the input came from, for the message and the kind of answer.
    enum Source: Sendable {
        case form, query, json
    }

    /// 400 when a field did not decode, 422 when a value did not validate.
    public var status: HttpStatus
    /// The message(s) of each field at fault, under the field's name as the form sends it
    /// (`title`, `address[city]`; a JSON body's `address.city`).
    public var errors: FieldErrors
    /// The fields as they were sent (a form's or the query's; none for a JSON body).
    public var values: [(name: String, value: String)]
    var source: Source
    /// Why the input is refused as a whole (a body that is not JSON), when no field is at fault.
    var reason: String?

    /// An error about `errors`, with the `values` to show again (usually
    /// `request.params.form`).
    public init(_ errors: FieldErrors, values: [(name: String, value: String)] = [], status: HttpStatus = .unprocessableEntity) {
        self.init(errors, values: values, status: status, source: .form)
    }

    init(_ errors: FieldErrors, values: [(name: String, value: String)], status: HttpStatus, source: Source) {
        self.errors = errors
        self.values = values
        self.status = status
        self.source = source
    }

    /// What is wrong, naming each field: `The form has invalid fields. severity: Not a whole
    /// number.`
    public var message: String {
        let what = switch source {
        case .form: "The form"
        case .query: "The query string"
        case .json: "The JSON body"
        }
        if errors.isEmpty { return "\(what) is not valid" + (reason.map { ": \($0)" } ?? ".") }
        return "\(what) has invalid fields. \(errors)" + (reason.map { " \($0)" } ?? "")
    }

    public var description: String { "\(status.code) \(status.reasonPhrase): \(message)" }

    /// The error as the default error pages answer it.
    var httpError: HttpError { HttpError(status, message) }

    /// Whether the client sent JSON, and so is answered in JSON whatever its `Accept` says.
    var sentJson: Bool { source == .json }

    /// What a template sees as `form`:
    ///
    /// - `form.values.NAME`: the value sent (the last, for a repeated name); never a secret's
    ///   (a field named like `password`, `passphrase`, `secret` or `token`), which stays empty;
    /// - `form.errors.NAME`: the field's messages in one text, absent when it has none, so
    ///   that `{{#form.errors.NAME}}` shows only for a field at fault;
    /// - `form.messages.NAME`: the field's messages as a list;
    /// - `form.message`: ``message``; `form.failed`: true.
    ///
    /// A nested name (`address[city]`) is nested here too: `form.values.address.city`.
    public var templateValue: [String: Any] { templateValue(first: [:]) }

    /// ``templateValue``, with `first` (the route's first values, by field name) for the fields
    /// that were not sent.
    func templateValue(first: [String: Any]) -> [String: Any] {
        let values = Self.formValues(first: first, sent: self.values)
        var joined: [String: Any] = [:]
        var lists: [String: Any] = [:]
        for (field, messages) in errors.all {
            let path = FormNode.path(of: field)[...]
            Self.insert(messages.joined(separator: " "), at: path, into: &joined)
            Self.insert(messages, at: path, into: &lists)
        }
        return ["values": values, "errors": joined, "messages": lists, "message": message, "failed": true]
    }

    /// The names ``templateValue`` has, for the check that a template names only these.
    static let templateKeys: Set<String> = ["values", "errors", "messages", "message", "failed"]

    /// What `form.values` holds: `first`, then what was `sent` over it, field by field (a field
    /// sent empty is empty), secrets left out; nested by name (`address[city]`). A field whose
    /// first value is a `Bool` is a checkbox: sent, it is ticked when its value is not empty
    /// (Mustache shows a section for any text, the empty one too).
    static func formValues(first: [String: Any], sent: [(name: String, value: String)]) -> [String: Any] {
        var values: [String: Any] = [:]
        for (name, value) in first.sorted(by: { $0.key < $1.key }) {
            guard let value = unwrappingOptionals(value) else { continue }
            insert(value, at: FormNode.path(of: name)[...], into: &values)
        }
        for (name, value) in sent where !SecretFields.contains(name) {
            let checkbox = first[name].flatMap(unwrappingOptionals) is Bool
            insert(checkbox ? !value.isEmpty : value, at: FormNode.path(of: name)[...], into: &values)
        }
        return values
    }

    /// Puts `value` at `path` in nested dictionaries; a value already there gives way.
    private static func insert(_ value: Any, at path: ArraySlice<String>, into dictionary: inout [String: Any]) {
        guard let key = path.first else { return }
        guard path.count > 1 else {
            dictionary[key] = value
            return
        }
        // Taken out while it changes, so that it is not copied.
        var child = dictionary.removeValue(forKey: key) as? [String: Any] ?? [:]
        insert(value, at: path.dropFirst(), into: &child)
        dictionary[key] = child
    }
}
