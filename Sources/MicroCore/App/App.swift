import Foundation
import Logging
import Metrics

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
public final class App: RouteBuilder {
    struct Definition: Sendable {
        var settings: Settings
        var router = Router()
        var beforeFilters: [Filter] = []
        var afterFilters: [Filter] = []
        var aroundBlocks: [AroundBlock] = []
        /// How each route group answers, by its prefix.
        var groupAnswers: [(scope: PathScope, answers: RouteGroup.Answers)] = []
        var errorHandlers: [ErrorHandler] = []
        var csrfExemptions: [RoutePattern] = []
        var templateValues: [String: Sited<TemplateValue>] = [:]
        var signedInSessionKeys: [String] = []
        /// Templates plugins bring, used where the views folder has none of the name.
        var builtInTemplates: [String: String] = [:]
        var sessionChecks: [Sited<@Sendable (SessionData, any SessionRevocations) -> Bool>] = []
        var identityChecks: [Sited<@Sendable (Request) async throws -> Void>] = []
        var credentialChecks: [Sited<@Sendable (Request) async throws -> Void>] = []
        var registered: [ObjectIdentifier: any Sendable] = [:]
        var metricMakers: [ObjectIdentifier: @Sendable (any MetricsFactory) -> any Sendable] = [:]
        /// What ``App/reload()`` and SIGHUP read again.
        var reloadables: [any Reloadable] = []
        /// Mistakes found while the app was defined (a bad pattern), reported at start-up.
        var problems: [String] = []
        /// Checks run with the final settings when the app is built for serving: a problem
        /// stops start-up, a warning is logged.
        var startupChecks: [Sited<@Sendable (Settings) -> (problem: String?, warning: String?)>] = []
        /// Services a plugin cannot work without (by type), with the problem their absence is.
        var requiredServices: [(type: ObjectIdentifier, problem: String)] = []
        /// What the app does once before its first request (``App/addPreparation(_:file:line:_:)``).
        var preparations: [Sited<@Sendable () async throws -> Void>] = []
        /// How many of ``preparations`` were started: those after are still to do.
        var preparationsStarted = 0
        /// The preparations under way or done: a failure stays, and is every start's answer.
        var preparing: Task<Void, any Error>?
        /// The app built for serving, until the definition changes.
        var responder: Responder?
    }

    let definition: Locked<Definition>
    /// The app's logger (label `micro`).
    public let logger: Logger
    /// The format the app's own logger was made in; nil when the app was given a logger.
    private let loggerFormat: LogFormat?

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
        logger = Self.ownLogger(settings)
        loggerFormat = settings.logFormat
        definition = Locked(Definition(settings: settings, problems: problems))
    }

    /// An app with the given settings (the environment is not read), logging to `logger` when
    /// given, else to its own (label `micro`, warnings and worse in the test environment).
    public init(settings: Settings, logger: Logger? = nil) {
        self.logger = logger.map(Self.escaping) ?? Self.ownLogger(settings)
        loggerFormat = logger == nil ? settings.logFormat : nil
        definition = Locked(Definition(settings: settings))
    }

    /// The app's own logger (label `micro`) in the settings' format: warnings and worse in the
    /// test environment, else information too.
    private static func ownLogger(_ settings: Settings) -> Logger {
        var logger = switch settings.logFormat {
        case .text: Logger(label: "micro")
        case .json: Logger(label: "micro") { JsonLogHandler(label: $0) }
        }
        logger.logLevel = settings.environment == .test ? .warning : .info
        return escaping(logger)
    }

    /// Why `format` cannot be the log's: the logger is made with the app, so a format set in
    /// its settings afterwards would otherwise be ignored without a word.
    private func logFormatProblem(_ format: LogFormat) -> String? {
        guard let made = loggerFormat else {
            return format == .text ? nil
                : "settings.logFormat is \(format), but the app logs through the logger given to App(settings:logger:), which keeps its own handler: give a logger with JsonLogHandler instead."
        }
        return format == made ? nil
            : "settings.logFormat is \(format), but the app's logger was made as \(made) with the app, before the change: set it in the settings given to App(settings:), or with MICRO_LOG_FORMAT."
    }

    /// `logger` writing every value with its control characters escaped
    /// (``ControlEscapingLogHandler``): what clients send reaches many log lines.
    private static func escaping(_ logger: Logger) -> Logger {
        guard !(logger.handler is ControlEscapingLogHandler) else { return logger }
        var logger = logger
        logger.handler = ControlEscapingLogHandler(wrapping: logger.handler)
        return logger
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

    /// Keeps a service (a plugin's store, client or settings), found again by its type with
    /// ``Request/service(_:)`` while requests are answered. One per type: a later one replaces it.
    public func register<T: Sendable>(_ service: T) {
        update { $0.registered[ObjectIdentifier(T.self)] = service }
    }

    /// Changes the service of type `T` (``register(_:)``), starting from `initial` where none
    /// is registered yet, and returns it: for plugins that add to what another one reads (the
    /// sign-in flow's listeners), whichever is installed first, and for a registry made when
    /// first asked for (no change).
    @discardableResult
    public func updateService<T: Sendable>(_ initial: @autoclosure () -> T, _ change: (inout T) -> Void = { _ in }) -> T {
        var updated: T?
        update { definition in
            var service = definition.registered[ObjectIdentifier(T.self)] as? T ?? initial()
            change(&service)
            definition.registered[ObjectIdentifier(T.self)] = service
            updated = service
        }
        return updated!
    }

    /// Makes a plugin's own metrics when the app is built for serving, with the app's metrics
    /// backend (``Settings/metricsFactory``, else swift-metrics' bootstrapped one), and keeps
    /// them as a service: found again by their type with ``Request/service(_:)``. One per
    /// type: a later one replaces it. `make` runs while the app is being built, holding its
    /// definition: it makes metrics and must not call the app.
    ///
    /// ```swift
    /// app.addMetrics { factory in ExportMetrics(factory: factory) }
    /// ```
    public func addMetrics<T: Sendable>(_ make: @escaping @Sendable (any MetricsFactory) -> T) {
        update { $0.metricMakers[ObjectIdentifier(T.self)] = { make($0) } }
    }

    /// Adds a check every request meets, named `what` in ``pipeline``, run before the
    /// credential checks, the CSRF check, the around blocks and filters: for a way in that
    /// every request carries (a trusted proxy's header naming the person), which must sign the
    /// right person in, or out, before anything reads the session. What it throws is answered
    /// as a filter's error would be. Each request pays for it: keep it to a header look-up
    /// when the request carries nothing for it.
    public func addIdentityCheck(
        _ what: String, file: String = #fileID, line: UInt = #line, _ check: @escaping @Sendable (Request) async throws -> Void
    ) {
        update { $0.identityChecks.append(Sited(what: what, site: SourceSite(file: file, line: line), value: check)) }
    }

    /// Adds a check of the credentials a request with an `Authorization` header carries (HTTP
    /// Basic, say), named `what` in ``pipeline``, run before the around blocks and filters; what it
    /// throws is answered as a filter's error would be.
    public func addCredentialCheck(
        _ what: String, file: String = #fileID, line: UInt = #line, _ check: @escaping @Sendable (Request) async throws -> Void
    ) {
        update { $0.credentialChecks.append(Sited(what: what, site: SourceSite(file: file, line: line), value: check)) }
    }

    /// Records a mistake in how a plugin was set up: the app does not start, and the message
    /// is reported with the others.
    ///
    /// ```swift
    /// if clientId.isEmpty { app.addProblem("OpenIdConnect.clientId is empty.") }
    /// ```
    public func addProblem(_ message: String) {
        update { $0.problems.append(message) }
    }

    /// Adds templates (by name, as Mustache text) that a plugin brings: the app's views
    /// folder overrides each with a file of the same name (`views/account/sessions.mustache`).
    public func addBuiltInTemplates(_ templates: [String: String]) {
        update { $0.builtInTemplates.merge(templates) { _, new in new } }
    }

    /// Adds a check run with the final settings when the app is built for serving, named
    /// `what` in ``pipeline``.
    public func addStartupCheck(
        _ what: String, file: String = #fileID, line: UInt = #line,
        _ check: @escaping @Sendable (Settings) -> (problem: String?, warning: String?)
    ) {
        update { $0.startupChecks.append(Sited(what: what, site: SourceSite(file: file, line: line), value: check)) }
    }

    /// Refuses to start, with `problem`, unless a plugin registered a service of type `T`: for
    /// a plugin that builds on another (the account pages on `Authentication`).
    public func require<T: Sendable>(_ type: T.Type, problem: String) {
        update { $0.requiredServices.append((ObjectIdentifier(type), problem)) }
    }

    /// Adds a value every template and layout sees under `name`: what `value` makes of the
    /// request (the app's version, a plugin's own; nil for none), made only when a template
    /// first looks the name up. The route's values win over it; a later one of the same name
    /// replaces it.
    ///
    /// ```swift
    /// app.addTemplateValue("version") { _ in "1.4.2" }
    /// app.addTemplateValue("team") { request in request.storage[CurrentTeam.self]?.name }
    /// ```
    public func addTemplateValue(_ name: String, file: String = #fileID, line: UInt = #line, _ value: @escaping TemplateValue) {
        update { $0.templateValues[name] = Sited(what: name, site: SourceSite(file: file, line: line), value: value) }
    }

    /// Names a session value that means someone is signed in to the session (authentication
    /// keeps its user under one): a page answered to a session holding it gets
    /// ``SecurityHeaders/signedInCacheControl``, for a plugin that signs people in its own way.
    public func addSignedInSessionKey(_ key: String) {
        update { if !$0.signedInSessionKeys.contains(key) { $0.signedInSessionKeys.append(key) } }
    }

    /// Adds a check of every session a request brings, given the revocations the app serves
    /// with, named `what` in ``pipeline``: a session it refuses is over (no user, no values) and
    /// its cookie is deleted. It runs on every request with a session, from memory: it must
    /// not wait on I/O. For a plugin whose sessions end by a rule of its own (a provider's
    /// logout revoking a name the session carries). Values are JSON text, as the session
    /// stores them.
    public func addSessionCheck(
        _ what: String, file: String = #fileID, line: UInt = #line,
        _ check: @escaping @Sendable (SessionData, any SessionRevocations) -> Bool
    ) {
        update { $0.sessionChecks.append(Sited(what: what, site: SourceSite(file: file, line: line), value: check)) }
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
            var problems = definition.problems + definition.settings.problems()
            if let problem = logFormatProblem(definition.settings.logFormat) { problems.append(problem) }
            for required in definition.requiredServices where definition.registered[required.type] == nil {
                problems.append(required.problem)
            }
            var warnings: [String] = []
            if problems.isEmpty {
                for check in definition.startupChecks {
                    let (problem, warning) = check.value(definition.settings)
                    problems += problem.map { [$0] } ?? []
                    warnings += warning.map { [$0] } ?? []
                }
            }
            guard problems.isEmpty else {
                throw ConfigurationError(problems.joined(separator: "\n"))
            }
            for warning in warnings { logger.warning("\(warning)") }
            let responder = try Responder(definition: definition, logger: logger)
            definition.responder = responder
            return responder
        }
    }

    /// Changes the definition; the app is built anew for the next request.
    func update(_ change: (inout Definition) -> Void) {
        definition.withLock { definition in
            change(&definition)
            definition.responder = nil
        }
    }

    func compile(_ pattern: String, at site: SourceSite) -> RoutePattern? {
        do {
            return try RoutePattern(pattern)
        } catch {
            update { $0.problems.append("\(site): \(error)") }
            return nil
        }
    }
}
