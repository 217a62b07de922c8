/// A `before` or `after` filter: runs for every request, or for those its condition names.
struct Filter: Sendable {
    typealias Handler = @Sendable (Request) async throws -> Void

    let condition: PathCondition
    let handler: Handler
    let site: SourceSite

    func applies(to path: String) -> RoutePattern.Match? { condition.applies(to: path) }
}
