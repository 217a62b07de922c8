/// The app's routes by method, tried in the order they were defined; the first match wins.
///
/// Each method's routes are indexed (``RouteIndex``) so that a request tries only those whose
/// pattern can match its path, still in definition order: an app's thousandth route costs a
/// request for another path about what its first does.
struct Router: Sendable {
    private var tables: [String: RouteIndex] = [:]
    /// See ``RouteIndex/init(hashMask:)``.
    private let hashMask: UInt64

    init(hashMask: UInt64 = .max) {
        self.hashMask = hashMask
    }

    /// How many routes were added, of every method.
    private var count = 0

    mutating func add(_ route: Route) {
        var route = route
        route.number = count
        count += 1
        tables[route.method.rawValue, default: RouteIndex(hashMask: hashMask)].add(route)
    }

    /// Every route, of every method, in the order they were defined.
    var routesInDefinitionOrder: [Route] {
        tables.values.flatMap(\.routes).sorted { $0.number < $1.number }
    }

    /// The routes for `method`; HEAD is answered by the GET routes.
    private func table(for method: HttpMethod) -> RouteIndex? {
        tables[method == .HEAD ? "GET" : method.rawValue]
    }

    /// Runs the first route matching the request; a route that calls `pass()` hands over to
    /// the next match. Throws a 404 ``HttpError`` when none answers.
    @inline(__always)  // into the responder: see `Responder.respond(to:)`
    func dispatch(_ request: Request) async throws -> Response {
        if let table = table(for: request.method) {
            var candidates = table.candidates(for: request.path)
            while let (position, match) = table.nextMatch(&candidates, in: request.path) {
                let route = table.routes[position]
                let saved = request.params
                if !match.parameters.isEmpty { request.params.path = route.pattern.orderedParameters(of: match) }
                if !match.splat.isEmpty { request.params.splat = match.splat }
                request.route = route.pattern
                request.site = route.site
                do {
                    return try await route.handler(request)
                } catch is PassToNextRoute {
                    request.params = saved
                    request.route = nil
                    request.namedFormPage = nil
                    continue
                } catch let error as FormError where request.namedFormPage != nil {
                    // The route named its form's page: the refusal is the route's answer.
                    try request.showFormPage(error)
                }
            }
        }
        throw HttpError(.notFound, "No route matches \(request.method.rawValue) \(request.path).")
    }

    /// The positions (in `method`'s definition order) of the routes whose pattern matches
    /// `path`, in the order a request tries them, `pass()` after `pass()`.
    func matches(for method: HttpMethod, path: String) -> [Int] {
        guard let table = table(for: method) else { return [] }
        var candidates = table.candidates(for: path)
        var matches: [Int] = []
        while let (position, _) = table.nextMatch(&candidates, in: path) {
            matches.append(position)
        }
        return matches
    }

    /// The same, found by trying every route of `method` in turn with the plain matcher (no
    /// index, no precheck): what the index must agree with.
    func linearMatches(for method: HttpMethod, path: String) -> [Int] {
        table(for: method)?.linearMatches(for: path) ?? []
    }
}
