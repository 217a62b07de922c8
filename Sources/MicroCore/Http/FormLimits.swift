/// What a form body or a query string may hold (``Settings/formFieldLimit``,
/// ``Settings/formMemoryLimit``), and the answer to one that holds more. The decoders check
/// the limits as they go, and stop as soon as one is passed.
struct FormLimits: Sendable {
    /// Where the fields come from: the answer differs.
    enum Source: Sendable {
        case query, body
    }

    /// The most fields: non-empty `&`-separated pieces (an empty name's too), or multipart
    /// parts (files too).
    var fields: Int
    /// The most bytes the fields kept may take, names and values decoded; files apart.
    var memory: Int
    var source: Source

    /// No limit: for the fuzz targets, and code that checks its own.
    static let none = FormLimits(fields: .max, memory: .max, source: .body)

    /// The limits of a form body.
    static func body(_ settings: Settings) -> FormLimits {
        FormLimits(fields: settings.formFieldLimit, memory: settings.formMemoryLimit, source: .body)
    }

    /// The limits of a query string: the count of fields (its length is the header limit's).
    static func query(_ settings: Settings) -> FormLimits {
        FormLimits(fields: settings.formFieldLimit, memory: .max, source: .query)
    }

    /// The answer to more than ``fields`` fields: 413 for a body, 414 for a query string (part
    /// of the target URI, which is then longer than the server will interpret).
    var tooManyFields: HttpError {
        switch source {
        case .query: HttpError(.uriTooLong, "The query string has more than \(fields) parameters, the most this server accepts.")
        case .body: HttpError(.payloadTooLarge, "The form has more than \(fields) fields, the most this server accepts.")
        }
    }

    /// The answer to fields over ``memory`` bytes.
    var tooMuchMemory: HttpError {
        HttpError(.payloadTooLarge, "The form's fields take more than \(memory) bytes, the most this server accepts (files apart).")
    }
}
