/// Which requests a filter or an around block runs for: all, those whose path matches a pattern,
/// and, for one of a route group, only those in the group.
struct PathCondition: Sendable {
    let pattern: RoutePattern?
    /// The route group it belongs to: it runs only for paths there.
    let scope: PathScope?

    /// The pattern's match for `path` (empty without a pattern); nil when it does not run.
    func applies(to path: String) -> RoutePattern.Match? {
        if let scope, !scope.contains(path) { return nil }
        guard let pattern else { return RoutePattern.Match() }
        return pattern.match(path)
    }
}
