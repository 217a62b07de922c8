/// A route: a method, a pattern and the block that answers.
struct Route: Sendable {
    typealias Handler = @Sendable (Request) async throws -> Response

    let method: HttpMethod
    let pattern: RoutePattern
    let handler: Handler
    /// Where the route was defined, for error pages and start-up errors.
    let site: SourceSite
}

/// A `before` or `after` filter: runs for every request, or for those whose path matches.
struct Filter: Sendable {
    typealias Handler = @Sendable (Request) async throws -> Void

    let pattern: RoutePattern?
    let handler: Handler
    let site: SourceSite

    func applies(to path: String) -> RoutePattern.Match? {
        guard let pattern else { return RoutePattern.Match() }
        return pattern.match(path)
    }
}

/// A place in the app's source: `main.swift:12`.
public struct SourceSite: Sendable, CustomStringConvertible {
    /// The file, as `#fileID` gives it.
    public var file: String
    /// The line.
    public var line: UInt

    public var description: String { "\(file):\(line)" }
}
