import MicroAuth
import MicroCore

extension TablePageRoutes {
    /// `GET /items/new`: the empty form.
    func newForm(_ request: Request) async throws -> Response {
        try permit(pages.roles.create, request)
        return try form(request, title: "New \(singular)", action: request.url(path), values: [:], refusal: nil)
            .makeResponse(for: request)
    }

    /// `GET /items/:id/edit`: the form holding the row.
    func editForm(_ request: Request) async throws -> Response {
        let (id, row) = try await existing(request, for: pages.roles.edit)
        return try form(request, title: "Change \(name(of: row, id: id))", action: request.url("\(path)/\(id)"), values: try text.values(of: row), refusal: nil)
            .makeResponse(for: request)
    }

    /// The row the request sends, decoded and checked; refused, the form again (422) with each
    /// field's messages and what was typed, or the JSON error for a script.
    func decoded(_ request: Request, before: Row?, id: Int?) async throws -> Row {
        do {
            let row = try request.decode(Row.self)
            try await pages.check?(row, before, request)
            return row
        } catch let error as FormError {
            guard !answersJson(request) else { throw error }
            let title = id.map { id in before.map { "Change \(name(of: $0, id: id))" } ?? "" } ?? "New \(singular)"
            let action = request.url(id.map { "\(path)/\($0)" } ?? path)
            let page = try form(request, title: title, action: action, values: [:], refusal: error)
            var response = try page.makeResponse(for: request)
            response.status = error.status
            try request.halt(response)
        }
    }

    /// The form page: a field per ``formFields`` with its input, its value (the row's, or what
    /// was typed when refused) and its messages.
    func form(_ request: Request, title: String, action: String, values: [String: Any], refusal: FormError?) throws -> String {
        let sent = Dictionary(refusal?.values.map { ($0.name, $0.value) } ?? [], uniquingKeysWith: { _, last in last })
        let inputs = formFields.map { field -> [String: Any] in
            let value = refusal == nil ? text.text(field, in: values) ?? "" : sent[field.name] ?? ""
            var input: [String: Any] = [
                "name": field.name, "label": field.label, "value": value, "required": !field.isOptional && field.kind != .bool,
            ]
            switch field.kind {
            case .text, .date: input["isText"] = true
            case .integer: input["isNumber"] = true; input["step"] = "1"
            case .decimal: input["isNumber"] = true; input["step"] = "any"
            case .bool:
                input["isBool"] = true
                input["checked"] = refusal == nil ? TableRowText.bool(values[field.name] ?? false) : !(sent[field.name] ?? "").isEmpty
            case .choice(let choices):
                input["isChoice"] = true
                input["options"] = choices.map { ["value": $0, "selected": $0 == value] }
            }
            if let messages = refusal?.errors[field.name], !messages.isEmpty { input["error"] = messages.joined(separator: " ") }
            return input
        }
        var page: [String: Any] = ["title": title, "action": action, "fields": inputs, "cancelLink": request.url(path)]
        if let refusal {
            page["form"] = refusal.templateValue
            page["failed"] = refusal.message
        }
        return try request.render(folder + "/form", page)
    }
}
