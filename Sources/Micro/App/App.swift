import Foundation
import Logging

/// A Micro application: routes, filters, error handlers and settings.
///
/// ```swift
/// let app = App()
/// app.get("/hello/:name") { request in
///     "Hello, \(Html.escape(request.params["name"] ?? "world"))!"
/// }
/// try await app.run()
/// ```
///
/// Define everything before ``run()``; routes are tried in the order they were defined.
public final class App: Sendable {
    struct Definition: Sendable {
        var settings: Settings
        var router = Router()
        var beforeFilters: [Filter] = []
        var afterFilters: [Filter] = []
        var errorHandlers: [ErrorHandler] = []
        var csrfExemptions: [RoutePattern] = []
        var templateValues: [String: TemplateValue] = [:]
        var sessionChecks: [@Sendable (SessionData, any SessionRevocations) -> Bool] = []
        var extensions: [ObjectIdentifier: any Sendable] = [:]
        /// What ``App/reload()`` and SIGHUP read again.
        var reloadables: [any Reloadable] = []
        /// Mistakes found while the app was defined (a bad pattern), reported at start-up.
        var problems: [String] = []
        /// The app built for serving, until the definition changes.
        var responder: Responder?
    }

    private let definition: Locked<Definition>
    /// The app's logger (label `micro`).
    public let logger: Logger

    /// An app with the default settings, `MICRO_ENV`, `HOST` and `PORT` applied.
    /// A bad value there is reported when the app starts.
    public init() {
        var problems: [String] = []
        var settings = Settings()
        do {
            settings = try Settings.fromProcess(ProcessInfo.processInfo.environment)
        } catch {
            problems.append(error.message)
        }
        var logger = Logger(label: "micro")
        logger.logLevel = settings.environment == .test ? .warning : .info
        self.logger = logger
        definition = Locked(Definition(settings: settings, problems: problems))
    }

    /// An app with the given settings (the environment is not read).
    public init(settings: Settings) {
        var logger = Logger(label: "micro")
        logger.logLevel = settings.environment == .test ? .warning : .info
        self.logger = logger
        definition = Locked(Definition(settings: settings))
    }

    /// The settings; change them before the app starts.
    public var settings: Settings {
        get { definition.withLock { $0.settings } }
        set { update { $0.settings = newValue } }
    }

    // MARK: Routes

    /// Adds a route for `method`: `pattern` (see ``RoutePattern``) answered by `handler`.
    public func on<R: ResponseConvertible>(
        _ method: HttpMethod, _ pattern: String, file: String = #fileID, line: UInt = #line,
        _ handler: @escaping @Sendable (Request) async throws -> R
    ) {
        let site = SourceSite(file: file, line: line)
        guard let compiled = compile(pattern, at: site) else { return }
        let route = Route(method: method, pattern: compiled, handler: { request in
            try await handler(request).makeResponse(for: request)
        }, site: site)
        update { $0.router.add(route) }
    }

    /// Adds a route whose block returns an `Encodable` value, answered as JSON.
    @_disfavoredOverload
    public func on<R: Encodable & SendableMetatype>(
        _ method: HttpMethod, _ pattern: String, file: String = #fileID, line: UInt = #line,
        _ handler: @escaping @Sendable (Request) async throws -> R
    ) {
        on(method, pattern, file: file, line: line) { request in JsonBody(try await handler(request)) }
    }

    /// Adds a route whose block returns nothing: the answer is `request.response` as the
    /// block left it (or what it halted or redirected with).
    public func on(
        _ method: HttpMethod, _ pattern: String, file: String = #fileID, line: UInt = #line,
        _ handler: @escaping @Sendable (Request) async throws -> Void
    ) {
        on(method, pattern, file: file, line: line) { request -> Response in
            try await handler(request)
            return request.response
        }
    }

    // MARK: Filters

    /// Runs `handler` before the route of every request, or of those whose path matches
    /// `pattern`. It may halt, redirect, or set up the response.
    public func before(_ pattern: String? = nil, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> Void) {
        guard let filter = filter(pattern, SourceSite(file: file, line: line), handler) else { return }
        update { $0.beforeFilters.append(filter) }
    }

    /// Runs `handler` after the route (or the error page) of every request, or of those whose
    /// path matches `pattern`; it can change `request.response`.
    public func after(_ pattern: String? = nil, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> Void) {
        guard let filter = filter(pattern, SourceSite(file: file, line: line), handler) else { return }
        update { $0.afterFilters.append(filter) }
    }

    /// A filter for all paths (no pattern) or those matching `pattern`; nil when the pattern is
    /// invalid (the mistake is reported at start-up).
    private func filter(_ pattern: String?, _ site: SourceSite, _ handler: @escaping Filter.Handler) -> Filter? {
        guard let pattern else { return Filter(pattern: nil, handler: handler, site: site) }
        return compile(pattern, at: site).map { Filter(pattern: $0, handler: handler, site: site) }
    }

    // MARK: Errors

    /// Answers requests that no route matched (instead of the default 404 page).
    public func notFound<R: ResponseConvertible>(_ handler: @escaping @Sendable (Request) async throws -> R) {
        update {
            $0.errorHandlers.append(ErrorHandler(matches: { _, status in status == .notFound }) { request, _ in
                try await handler(request).makeResponse(for: request)
            })
        }
    }

    /// Answers errors that end in `status` (a thrown ``HttpError`` of that status, or 500 for
    /// any other error), instead of the default page. `request.response.status` is preset.
    public func error<R: ResponseConvertible>(_ status: HttpStatus, _ handler: @escaping @Sendable (Request, any Error) async throws -> R) {
        update {
            $0.errorHandlers.append(ErrorHandler(matches: { _, errorStatus in errorStatus == status }) { request, error in
                try await handler(request, error).makeResponse(for: request)
            })
        }
    }

    /// Answers errors of type `type`, with the error itself (status 500 unless you set one).
    public func error<E: Error, R: ResponseConvertible & SendableMetatype>(_ type: E.Type, _ handler: @escaping @Sendable (Request, E) async throws -> R) {
        update {
            $0.errorHandlers.append(ErrorHandler(matches: { error, _ in error is E }) { request, error in
                try await handler(request, error as! E).makeResponse(for: request)
            })
        }
    }

    // MARK: Protection

    /// Lets state-changing requests to paths matching `pattern` through without a CSRF token:
    /// for webhooks and APIs that authenticate otherwise. (JSON bodies never need one: browsers
    /// cannot send them across sites without CORS.)
    ///
    /// ```swift
    /// app.skipCsrf("/api/*")
    /// ```
    public func skipCsrf(_ pattern: String, file: String = #fileID, line: UInt = #line) {
        guard let compiled = compile(pattern, at: SourceSite(file: file, line: line)) else { return }
        update { $0.csrfExemptions.append(compiled) }
    }

    /// Keeps a plugin's service, found again by its type while requests are answered.
    func register<T: Sendable>(_ service: T) {
        update { $0.extensions[ObjectIdentifier(T.self)] = service }
    }

    /// Adds a value every template sees under `name`: what `value` makes of the request, made
    /// when a template first looks the name up (nil: none, Micro's own value if it has one).
    /// The route's values win over it; a later one of the same name replaces it.
    func addTemplateValue(_ name: String, _ value: @escaping TemplateValue) {
        update { $0.templateValues[name] = value }
    }

    /// Adds a check of every session a request brings, given the revocations the app serves
    /// with: a session it refuses is over (no user, no values) and its cookie is deleted. It runs
    /// on every request with a session, from memory.
    func addSessionCheck(_ check: @escaping @Sendable (SessionData, any SessionRevocations) -> Bool) {
        update { $0.sessionChecks.append(check) }
    }

    /// What ``reload()`` reads again.
    var reloadables: [any Reloadable] { definition.withLock { $0.reloadables } }

    /// Changes what ``reload()`` reads again; the app being served stays as it is.
    func updateReloadables(_ change: (inout [any Reloadable]) -> Void) {
        definition.withLock { change(&$0.reloadables) }
    }

    // MARK: Running

    /// The whole app as it is now, frozen for serving. Throws the mistakes found while it was
    /// defined (bad route patterns, bad settings), each with where it was made.
    func makeResponder() throws(ConfigurationError) -> Responder {
        try definition.withLock { (definition: inout Definition) throws(ConfigurationError) -> Responder in
            if let responder = definition.responder { return responder }
            let problems = definition.problems + definition.settings.problems()
            guard problems.isEmpty else {
                throw ConfigurationError(problems.joined(separator: "\n"))
            }
            let responder = try Responder(definition: definition, logger: logger)
            definition.responder = responder
            return responder
        }
    }

    /// Changes the definition; the app is built anew for the next request.
    private func update(_ change: (inout Definition) -> Void) {
        definition.withLock { definition in
            change(&definition)
            definition.responder = nil
        }
    }

    private func compile(_ pattern: String, at site: SourceSite) -> RoutePattern? {
        do {
            return try RoutePattern(pattern)
        } catch {
            update { $0.problems.append("\(site): \(error)") }
            return nil
        }
    }
}
