/// The app's routes by method, tried in the order they were defined; the first match wins.
struct Router: Sendable {
    private var routes: [String: [Route]] = [:]

    mutating func add(_ route: Route) {
        routes[route.method.rawValue, default: []].append(route)
    }

    /// The routes for `method`; HEAD is answered by the GET routes.
    func candidates(for method: HttpMethod) -> [Route] {
        routes[method == .HEAD ? "GET" : method.rawValue] ?? []
    }

    /// Runs the first route matching the request; a route that calls `pass()` hands over to
    /// the next match. Throws a 404 ``HttpError`` when none answers.
    @inline(__always)  // into the responder: see `Responder.respond(to:)`
    func dispatch(_ request: Request) async throws -> Response {
        for route in candidates(for: request.method) {
            guard let match = route.pattern.match(request.path) else { continue }
            let saved = request.params
            if !match.parameters.isEmpty {
                request.params.path = route.pattern.tokens.compactMap { token in
                    guard case .parameter(let name, _) = token, let value = match.parameters[name] else { return nil }
                    return (name, value)
                }
            }
            if !match.splat.isEmpty { request.params.splat = match.splat }
            request.route = route.pattern
            request.site = route.site
            do {
                return try await route.handler(request)
            } catch is PassToNextRoute {
                request.params = saved
                request.route = nil
                continue
            }
        }
        throw HttpError(.notFound, "No route matches \(request.method.rawValue) \(request.path).")
    }
}
