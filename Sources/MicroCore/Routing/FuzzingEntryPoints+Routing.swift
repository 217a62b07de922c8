extension FuzzingEntryPoints {
    /// For `routes` defined in that order, the routes a `method` request for `path` tries, as
    /// the index finds them and as the plain linear matcher does: positions among the routes of
    /// `method` (GET's for HEAD), which must be equal.
    @_spi(Fuzzing)
    public static func routeMatches(
        _ routes: [(method: HttpMethod, pattern: RoutePattern)], method: HttpMethod, path: String
    ) -> (indexed: [Int], linear: [Int]) {
        var router = Router()
        for (routeMethod, pattern) in routes {
            router.add(Route(method: routeMethod, pattern: pattern, handler: { _ in Response() }, site: SourceSite(file: "fuzz", line: 0)))
        }
        return (router.matches(for: method, path: path), router.linearMatches(for: method, path: path))
    }
}
