/// A route: a method, a pattern and the block that answers.
struct Route: Sendable {
    typealias Handler = @Sendable (Request) async throws -> Response

    let method: HttpMethod
    let pattern: RoutePattern
    let handler: Handler
    /// Where the route was defined, for error pages and start-up errors.
    let site: SourceSite
    /// Its place among all the app's routes, every method's, in definition order (``Router``
    /// sets it).
    var number = 0
}
