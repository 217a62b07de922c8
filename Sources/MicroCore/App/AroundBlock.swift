/// An `around` block: runs the request's filters and route itself, through `next`, with work
/// of its own before and after.
struct AroundBlock: Sendable {
    typealias Handler = @Sendable (Request, _ next: () async throws -> Response) async throws -> Response

    let condition: PathCondition
    let handler: Handler
    let site: SourceSite
}
