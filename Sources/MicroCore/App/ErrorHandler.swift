/// An `error { }` handler: which errors it answers and how.
struct ErrorHandler: Sendable {
    /// Given the error and the status it ends in, whether this handler answers it.
    let matches: @Sendable (any Error, HttpStatus) -> Bool
    /// The route group it belongs to: it answers only errors of requests there, before the
    /// app's own handlers.
    var scope: PathScope?
    let handler: @Sendable (Request, any Error) async throws -> Response
    /// What it answers, for ``App/pipeline`` (`404`, `DecodingError`).
    let what: String
    /// Where it was added.
    let site: SourceSite

    /// `handlers` in the order an error tries them: a group's before the app's, an inner
    /// group's before an outer one's, else as they were added.
    static func inTryingOrder(_ handlers: [ErrorHandler]) -> [ErrorHandler] {
        handlers.enumerated().sorted { a, b in
            let (aLength, bLength) = (a.element.scope?.prefix.utf8.count ?? 0, b.element.scope?.prefix.utf8.count ?? 0)
            return aLength != bLength ? aLength > bLength : a.offset < b.offset
        }.map(\.element)
    }
}
