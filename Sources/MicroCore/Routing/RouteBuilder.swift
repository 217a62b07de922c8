/// What routes are defined on: the ``App`` and its ``RouteGroup``s. Both offer the same
/// `get`, `post`, `put`, `patch`, `delete`, `options` and `on`.
public protocol RouteBuilder: Sendable {
    /// Adds a route for `method`: `pattern` (see ``RoutePattern``) answered by `handler`.
    func on<R: ResponseConvertible>(
        _ method: HttpMethod, _ pattern: String, file: String, line: UInt,
        _ handler: @escaping @Sendable (Request) async throws -> R
    )
}
