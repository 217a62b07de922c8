import Foundation

extension Request {
    /// The request's input as `T`: the form body's fields (urlencoded or multipart), a JSON
    /// body, or, for a request without a body, the query string's parameters. Then, when `T`
    /// is ``Validatable``, its checks.
    ///
    /// ```swift
    /// struct Search: Decodable { var q: String; var page: Int? }
    /// app.get("/search") { request in
    ///     let search = try request.decode(Search.self)   // /search?q=disk&page=2
    ///     ...
    /// }
    /// ```
    ///
    /// Form fields and query parameters are read as browsers send them: numbers,
    /// `Date` (ISO 8601: `2024-03-01`, `2024-03-01T12:30`, with optional zone), `URL`,
    /// enumerations by raw value, `Bool` from a checkbox (unchecked is false), optionals nil
    /// when missing or empty, lists from repeated names (`tags=a&tags=b` or `tags[]`), nested
    /// types from `address[city]`; fields the type does not name are ignored. A JSON body
    /// decodes with `JSONDecoder`, its dates as ISO 8601 text too. Path parameters and uploaded
    /// files are not decoded: read them from ``params``.
    ///
    /// Throws a ``FormError``: 400 naming each field that does not decode, 422 with the messages
    /// of ``Validatable/validate(into:)``; not caught, it answers with its message (as JSON,
    /// `{"error": ..., "fields": {...}}`, to a client that sent JSON or asks for it). To show the
    /// form again instead, see ``decode(_:orRender:_:layout:)``. Throws a 415 ``HttpError`` for a
    /// body that is neither a form nor JSON.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        let mediaType = HeaderAttributes(headers.first(name: "Content-Type") ?? "").value.lowercased()
        if mediaType == "application/json" || mediaType.hasSuffix("+json") {
            return try validated(decodeJson(T.self), values: [], source: .json)
        }
        if mediaType == "application/x-www-form-urlencoded" || mediaType == "multipart/form-data" {
            return try validated(FormValueDecoder.decode(T.self, from: params.form, source: .form), values: params.form, source: .form)
        }
        guard body.readableBytes == 0 else {
            throw HttpError(.unsupportedMediaType,
                "Expected a form or a JSON body (Content-Type: application/x-www-form-urlencoded, multipart/form-data or application/json).")
        }
        return try validated(FormValueDecoder.decode(T.self, from: params.query, source: .query), values: params.query, source: .query)
    }

    /// `value`, once its ``Validatable`` checks pass.
    private func validated<T>(_ value: T, values: [(name: String, value: String)], source: FormError.Source) throws(FormError) -> T {
        guard let checked = value as? any Validatable else { return value }
        var errors = FieldErrors()
        checked.validate(into: &errors)
        guard errors.isEmpty else { throw FormError(errors, values: values, status: .unprocessableEntity, source: source) }
        return value
    }

    private func decodeJson<T: Decodable>(_ type: T.Type) throws -> T {
        // The server keeps to the limit already; a body given otherwise is held to it too.
        guard body.readableBytes <= settings.bodyLimit else {
            throw HttpError(.payloadTooLarge, Response.bodyTooLarge(limit: settings.bodyLimit))
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            guard let date = IsoDate.parse(try container.decode(String.self)) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: IsoDate.expected)
            }
            return date
        }
        do {
            return try decoder.decode(T.self, from: Data(body.readableBytesView))
        } catch let error as DecodingError {
            throw Self.jsonProblem(error)
        }
    }

    /// A `JSONDecoder` error as the field at fault and what it should hold.
    private static func jsonProblem(_ error: DecodingError) -> FormError {
        func name(_ path: [any CodingKey]) -> String {
            path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        let problem: (path: [any CodingKey], message: String)
        switch error {
        case .keyNotFound(let key, let context): problem = (context.codingPath + [key], FormScalar.required)
        case .valueNotFound(_, let context): problem = (context.codingPath, FormScalar.required)
        case .typeMismatch(let type, let context): problem = (context.codingPath, expected(type) ?? context.debugDescription)
        case .dataCorrupted(let context): problem = (context.codingPath, context.debugDescription)
        @unknown default: problem = ([], "\(error)")
        }
        var errors = FieldErrors()
        if !problem.path.isEmpty { errors.add(name(problem.path), problem.message) }
        var failure = FormError(errors, values: [], status: .badRequest, source: .json)
        // Not JSON at all, or JSON of the wrong shape at the top.
        if problem.path.isEmpty { failure.reason = problem.message }
        return failure
    }

    /// What a JSON value of `type` is called in a message.
    private static func expected(_ type: Any.Type) -> String? {
        switch type {
        case is String.Type: "Expected a string."
        case is Bool.Type: "Expected true or false."
        case is any Numeric.Type: "Expected a number."
        case is [Any].Type: "Expected a list."
        case is [String: Any].Type: "Expected an object."
        default: nil
        }
    }
}
