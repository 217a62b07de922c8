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
}
