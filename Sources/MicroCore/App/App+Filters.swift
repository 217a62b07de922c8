// Filters and around blocks: code that runs before, after or around the routes.

extension App {
    /// Runs `handler` before the route of every request, or of those whose path matches
    /// `pattern`. It may halt, redirect, or set up the response.
    public func before(_ pattern: String? = nil, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> Void) {
        addFilter(before: true, pattern, scope: nil, SourceSite(file: file, line: line), handler)
    }

    /// Runs `handler` after the route (or the error page) of every request, or of those whose
    /// path matches `pattern`; it can change `request.response`.
    public func after(_ pattern: String? = nil, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> Void) {
        addFilter(before: false, pattern, scope: nil, SourceSite(file: file, line: line), handler)
    }

    /// Wraps the before filters and the route of every request, or of those whose path matches
    /// `pattern`: `handler` runs them by calling `next`, and can work before and after, time
    /// them, or catch what they throw (a halt or a redirect comes back as a response). What it
    /// throws is answered as a route's error would be; after filters run on what it returns.
    /// The first one defined is the outermost.
    ///
    /// ```swift
    /// app.around { request, next in
    ///     let started = ContinuousClock.now
    ///     let response = try await next()
    ///     request.logger.info("\(request.path) took \(ContinuousClock.now - started)")
    ///     return response
    /// }
    /// ```
    public func around(
        _ pattern: String? = nil, file: String = #fileID, line: UInt = #line,
        _ handler: @escaping @Sendable (Request, _ next: () async throws -> Response) async throws -> Response
    ) {
        addAroundBlock(pattern, scope: nil, SourceSite(file: file, line: line), handler)
    }

    /// Adds a before or after filter, of the app or of a route group.
    func addFilter(before: Bool, _ pattern: String?, scope: PathScope?, _ site: SourceSite, _ handler: @escaping Filter.Handler) {
        guard let condition = condition(pattern, scope: scope, site) else { return }
        let filter = Filter(condition: condition, handler: handler, site: site)
        update { before ? $0.beforeFilters.append(filter) : $0.afterFilters.append(filter) }
    }

    /// Adds an `around` block, of the app or of a route group.
    func addAroundBlock(_ pattern: String?, scope: PathScope?, _ site: SourceSite, _ handler: @escaping AroundBlock.Handler) {
        guard let condition = condition(pattern, scope: scope, site) else { return }
        update { $0.aroundBlocks.append(AroundBlock(condition: condition, handler: handler, site: site)) }
    }

    /// The condition for all paths (no pattern) or those matching `pattern`, within `scope`;
    /// nil when the pattern is invalid (the mistake is reported at start-up).
    private func condition(_ pattern: String?, scope: PathScope?, _ site: SourceSite) -> PathCondition? {
        guard let pattern else { return PathCondition(pattern: nil, scope: scope) }
        return compile(pattern, at: site).map { PathCondition(pattern: $0, scope: scope) }
    }
}
