/// Routes under one prefix, with filters, around blocks and error handlers of their own: Sinatra's
/// `namespace`, Flask's blueprints, Hummingbird's `RouterGroup`.
///
/// ```swift
/// app.group("/admin") { admin in
///     admin.authorize(role: "admin")              // signed in, with the role, or no entry
///     admin.get("/users") { request in try request.render("admin/users", [...]) }
///     admin.error(.notFound) { request, _ in "No such admin page." }
/// }
/// app.group("/api", answers: .json) { api in
///     api.authenticate()                          // 401 + WWW-Authenticate, HTTP Basic accepted
///     api.get("/notes") { request in notes }
/// }
/// ```
///
/// (A group's `authorize(role:)` and `authenticate()` come with MicroAuth.)
///
/// A route's pattern is joined to the prefix (`/users` under `/admin` is `/admin/users`; `/` is
/// the prefix itself, with or without a trailing slash). The group's filters, around blocks and
/// error handlers run for the paths under its prefix, in the order they were defined among the
/// app's own, and its error handlers are tried before the app's. Groups nest.
public struct RouteGroup: RouteBuilder {
    /// How a group's requests are answered when they need a signed-in user or fail.
    public enum Answers: Sendable {
        /// Pages: `authenticate()` redirects to the sign-in page.
        case pages
        /// An API for scripts: `authenticate()` answers `401` with `WWW-Authenticate`, HTTP
        /// Basic credentials are accepted, and errors are JSON.
        case json
    }

    /// The app the routes are added to.
    public let app: App
    /// The prefix, `/admin` say.
    public let prefix: String
    /// How the group answers.
    public let answers: Answers
    let scope: PathScope

    init(app: App, prefix: String, answers: Answers) {
        self.app = app
        self.prefix = prefix
        self.answers = answers
        scope = PathScope(prefix: prefix)
    }

    public func on<R: ResponseConvertible>(
        _ method: HttpMethod, _ pattern: String, file: String = #fileID, line: UInt = #line,
        _ handler: @escaping @Sendable (Request) async throws -> R
    ) {
        guard let joined = join(pattern, SourceSite(file: file, line: line)) else { return }
        app.on(method, joined, file: file, line: line, handler)
    }

    /// A group inside this one: its prefix follows this one's, and it answers as this one
    /// unless told otherwise.
    @discardableResult
    public func group(
        _ prefix: String, answers: Answers? = nil, file: String = #fileID, line: UInt = #line,
        _ define: (RouteGroup) -> Void = { _ in }
    ) -> RouteGroup {
        // Checked on its own: `reports` would make `/adminreports`, outside this group.
        if let problem = PathScope.problem(with: prefix) {
            app.addProblem("\(SourceSite(file: file, line: line)): \(problem)")
        }
        return app.group(self.prefix + prefix, answers: answers ?? self.answers, file: file, line: line, define)
    }

    /// Runs `handler` before the route of the group's requests (of those matching `pattern`,
    /// joined to the prefix, when given), after the app's own before filters.
    public func before(_ pattern: String? = nil, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> Void) {
        let site = SourceSite(file: file, line: line)
        guard let joined = pattern.map({ join($0, site) }) ?? .some(nil) else { return }
        app.addFilter(before: true, joined, scope: scope, site, handler)
    }

    /// Runs `handler` after the route (or the error page) of the group's requests.
    public func after(_ pattern: String? = nil, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> Void) {
        let site = SourceSite(file: file, line: line)
        guard let joined = pattern.map({ join($0, site) }) ?? .some(nil) else { return }
        app.addFilter(before: false, joined, scope: scope, site, handler)
    }

    /// Wraps the filters and the route of the group's requests (see ``App/around(_:file:line:_:)``).
    public func around(
        _ pattern: String? = nil, file: String = #fileID, line: UInt = #line,
        _ handler: @escaping @Sendable (Request, _ next: () async throws -> Response) async throws -> Response
    ) {
        let site = SourceSite(file: file, line: line)
        guard let joined = pattern.map({ join($0, site) }) ?? .some(nil) else { return }
        app.addAroundBlock(joined, scope: scope, site, handler)
    }

    /// Answers the group's errors that end in `status`, before the app's own handlers.
    public func error<R: ResponseConvertible>(
        _ status: HttpStatus, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request, any Error) async throws -> R
    ) {
        let site = SourceSite(file: file, line: line)
        app.addErrorHandler(scope: scope, what: "\(status.code)", site: site, matches: { _, errorStatus in errorStatus == status }) { request, error in
            try await handler(request, error).makeResponse(for: request)
        }
    }

    /// Answers the group's errors of type `type`, before the app's own handlers.
    public func error<E: Error, R: ResponseConvertible & SendableMetatype>(
        _ type: E.Type, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request, E) async throws -> R
    ) {
        let site = SourceSite(file: file, line: line)
        app.addErrorHandler(scope: scope, what: "\(E.self)", site: site, matches: { error, _ in error is E }) { request, error in
            try await handler(request, error as! E).makeResponse(for: request)
        }
    }

    /// `pattern` under the prefix; nil (a start-up problem naming `site`) when it does not start
    /// with a slash, or makes that slash optional (`/?:format`), either of which would let it
    /// match paths outside the group (`/adminx`).
    private func join(_ pattern: String, _ site: SourceSite) -> String? {
        guard pattern.first == "/", pattern == "/?" || !pattern.hasPrefix("/?") else {
            app.addProblem("\(site): a pattern in the group '\(prefix)' starts with a slash that is not optional, not '\(pattern)'.")
            return nil
        }
        return pattern == "/" ? prefix + "/?" : prefix + pattern
    }
}
