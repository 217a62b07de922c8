import NIOHTTP1
import Logging
import NIOCore

/// The app frozen for serving: runs one request through static files, before filters, the
/// router, error handlers and after filters. Both the server and the test client use it.
final class Responder: HttpResponding {
    let settings: Settings
    let serverSettings: ServerSettings
    let logger: Logger
    private let router: Router
    private let beforeFilters: [Filter]
    private let afterFilters: [Filter]
    private let aroundBlocks: [AroundBlock]
    private let identityChecks: [@Sendable (Request) async throws -> Void]
    private let credentialChecks: [@Sendable (Request) async throws -> Void]
    private let errorHandlers: [ErrorHandler]
    private let staticFiles: StaticFiles?
    /// `Strict-Transport-Security`, for every answer when the app serves HTTPS in production.
    private let strictTransportSecurity: String?
    /// Whether the access log's lines carry the request's parts as fields of their own too:
    /// when they are JSON, which a collector queries by field; a text line has them in its
    /// message already.
    private let accessLogFields: Bool
    let services: Services

    init(definition: App.Definition, logger: Logger) throws(ConfigurationError) {
        let settings = definition.settings.resolved()
        self.settings = settings
        serverSettings = settings.server
        let handler = (logger.handler as? ControlEscapingLogHandler)?.wrapped ?? logger.handler
        accessLogFields = handler is JsonLogHandler
        strictTransportSecurity = settings.tls.flatMap { tls in
            settings.environment == .production && tls.strictTransportSecurityMaxAge > 0
                ? "max-age=\(tls.strictTransportSecurityMaxAge)" : nil
        }
        self.logger = logger
        router = definition.router
        beforeFilters = definition.beforeFilters
        afterFilters = definition.afterFilters
        aroundBlocks = definition.aroundBlocks
        identityChecks = definition.identityChecks.map(\.value)
        credentialChecks = definition.credentialChecks.map(\.value)
        errorHandlers = ErrorHandler.inTryingOrder(definition.errorHandlers)
        staticFiles = settings.publicFolder.flatMap {
            StaticFiles(folder: $0, cacheControl: settings.staticCacheControl, environment: settings.environment)
        }
        if let warning = SessionSecret.startupWarning(settings) { logger.warning("\(warning)") }
        services = Services(
            settings: settings,
            sessions: try Sessions(settings: settings, checks: definition.sessionChecks.map(\.value)),
            views: try Views(
                folder: settings.views ?? "", environment: settings.environment,
                fallbacks: ["error": ErrorPages.template].merging(definition.builtInTemplates) { _, plugin in plugin }),
            csrf: CsrfProtection(
                exemptions: definition.csrfExemptions,
                trustedOrigins: settings.trustedOrigins + (settings.parsedPublicUrl.map { [$0.origin] } ?? [])),
            securityHeaders: settings.securityHeaders,
            templateValues: definition.templateValues.mapValues(\.value),
            registered: definition.registered,
            metricMakers: definition.metricMakers,
            signedInSessionKeys: definition.signedInSessionKeys,
            groupAnswers: definition.groupAnswers)
    }

    /// Answers a request given by its parts; never throws: every failure becomes a page.
    func respond(
        method: HttpMethod, uri: String, headers: HttpHeaders, body: ByteBuffer, remoteAddress: String?, localPort: Int?
    ) async -> Response {
        let metrics = services.metrics
        let timed = settings.accessLog || metrics.isEnabled
        let start = timed ? NIODeadline.now() : .uptimeNanoseconds(0)
        var response: Response
        var route = AppMetrics.Route.unmatched
        let id = RequestId.of(peer: remoteAddress, headers: headers, proxies: services.proxies)
        do throws(HttpError) {
            // Before anything reads the request: a foreign host is a rebound name.
            let host = services.proxies.forwardedHost(peer: remoteAddress, headers: headers) ?? headers.first(name: "Host")
            guard services.allowedHosts.allows(host) else { throw AllowedHosts.refusal(of: host ?? "") }
            let request = try Request(
                method: method, uri: uri, headers: headers, body: body,
                services: services, logger: logger, remoteAddress: remoteAddress, localPort: localPort, id: id)
            response = await respond(to: request, route: &route)
        } catch {
            response = ErrorPages.page(
                status: error.status, message: error.message, detail: nil, json: Request.prefersJson(headers))
            services.securityHeaders.apply(to: &response)
            services.securityHeaders.applyCaching(to: &response, sessionLoaded: false, signedIn: { false })
        }
        response.headers.add(name: "X-Request-Id", value: id)
        if let strictTransportSecurity { response.headers.replaceOrAdd(name: "Strict-Transport-Security", value: strictTransportSecurity) }
        response.finalize(for: method)
        if timed {
            let nanoseconds = (NIODeadline.now() - start).nanoseconds
            if metrics.isEnabled {
                metrics.request(method: method, route: route, status: Int(response.status.code), nanoseconds: nanoseconds)
            }
            if settings.accessLog {
                let micros = nanoseconds / 1000
                // Cut by bytes: a `?` that a combining mark follows is still where the query starts.
            let target = settings.accessLogQueries ? Substring(uri) : Substring(uri.utf8.prefix { $0 != UInt8(ascii: "?") })
                let milliseconds = Double(micros) / 1000
                var metadata: Logger.Metadata = ["request_id": .string(id)]
                if accessLogFields {
                    metadata["method"] = .string(method.rawValue)
                    metadata["path"] = .string(String(target))
                    metadata["status"] = .stringConvertible(Int(response.status.code))
                    metadata["bytes"] = .stringConvertible(response.body.count)
                    metadata["duration_ms"] = .stringConvertible(milliseconds)
                }
                logger.info("\(method.rawValue) \(target) \(response.status.code) \(response.body.count)B \(milliseconds)ms", metadata: metadata)
            }
        }
        return response
    }

    // Inlined into `respond(method:…)`, as `run` and `Router.dispatch` are. A nonisolated
    // async call that stays a call costs two calls to the runtime's `swift_task_switch` (on
    // the way in and after it returns), each checking the task's executor preference under a
    // lock; inlined, the three cost none (a `perf` uprobe on the runtime's function counts
    // them).
    //
    // `route` gets the name the metrics give the request's route.
    @inline(__always)
    private func respond(to request: Request, route: inout String) async -> Response {
        if let staticFiles, request.method == .GET || request.method == .HEAD,
            var file = staticFiles.response(for: request)
        {
            // Its own Cache-Control and validators, whoever asks: a file is the same for all.
            services.securityHeaders.apply(to: &file)
            route = AppMetrics.Route.static
            return file
        }
        // A client with a session cookie is active: load its session so that the inactivity
        // window is renewed even by routes that never look at the session.
        if request.cookie(services.sessions.settings.cookieName) != nil { _ = request.session }
        var response = await run(request)
        // A form page's values may hold the request itself: let both go.
        request.namedFormPage = nil
        if services.metrics.isEnabled, let pattern = request.route { route = pattern.description }
        // Drop the request's copy, so the headers below are edited in place.
        request.response = Response()
        if let session = request.loadedSession {
            do {
                try services.sessions.commit(
                    session, into: &response, path: request.basePath.isEmpty ? "/" : request.basePath, logger: request.logger)
            } catch {
                response = await errorResponse(for: error, request)
            }
        }
        services.securityHeaders.apply(to: &response)
        services.securityHeaders.applyCaching(
            to: &response, sessionLoaded: request.loadedSession != nil, byCredentials: request.isAuthenticatedByHeader,
            signedIn: { request.isSignedInForHeaders })
        return response
    }

    /// CSRF protection, before filters, the route (inside the around blocks), after filters, and
    /// error handling.
    @inline(__always)  // see `respond(to:)`
    private func run(_ request: Request) async -> Response {
        var response: Response
        do {
            for check in identityChecks { try await check(request) }
            if !credentialChecks.isEmpty, request.headers.contains(name: "Authorization") {
                for check in credentialChecks { try await check(request) }
            }
            // Before the around blocks too: none of the app's code runs for a forged request.
            try services.csrf.check(request)
            response = try await aroundBlocks.isEmpty ? filtersAndRoute(request) : wrapped(request, from: 0)
        } catch {
            response = await errorResponse(for: error, request)
        }
        guard !afterFilters.isEmpty else { return response }
        request.response = response
        do {
            for filter in afterFilters where filter.applies(to: request.path) != nil {
                request.site = filter.site
                try await filter.handler(request)
            }
            return request.response
        } catch {
            return await errorResponse(for: error, request)
        }
    }

    @inline(__always)  // see `respond(to:)`
    private func filtersAndRoute(_ request: Request) async throws -> Response {
        for filter in beforeFilters {
            guard let match = filter.applies(to: request.path) else { continue }
            request.site = filter.site
            if !match.splat.isEmpty { request.params.splat = match.splat }
            if !match.parameters.isEmpty, let pattern = filter.condition.pattern {
                request.params.path = pattern.orderedParameters(of: match)
            }
            try await filter.handler(request)
        }
        return try await router.dispatch(request)
    }

    /// The around blocks from `index` on that apply to the request, around the filters and the
    /// route; a halt inside comes back to an around block as the response it carries.
    private func wrapped(_ request: Request, from index: Int) async throws -> Response {
        var index = index
        while index < aroundBlocks.count, aroundBlocks[index].condition.applies(to: request.path) == nil { index += 1 }
        guard index < aroundBlocks.count else { return try await filtersAndRoute(request) }
        let block = aroundBlocks[index]
        request.site = block.site
        return try await block.handler(request) {
            do {
                return try await wrapped(request, from: index + 1)
            } catch let halt as Halt {
                return halt.response
            }
        }
    }

    /// The response for an error thrown by a filter or a route: the halt's response, the
    /// app's handler for it, or the default page.
    private func errorResponse(for error: any Error, _ request: Request) async -> Response {
        if let halt = error as? Halt { return halt.response }
        let formError = error as? FormError
        let httpError = error as? HttpError ?? formError?.httpError
        let status = httpError?.status ?? .internalServerError
        if httpError == nil, !(error is CancellationError) {
            request.logger.error("\(request.method.rawValue) \(request.path): \(String(reflecting: error))", metadata: request.site.map { ["site": "\($0)"] })
        }
        var preset = Response(status: status)
        if let httpError { preset.headers.add(contentsOf: httpError.headers) }
        for handler in errorHandlers where handler.matches(error, status) && handler.scope?.contains(request.path) != false {
            request.response = preset
            do {
                return try await handler.handler(request, error)
            } catch let halt as Halt {
                return halt.response
            } catch {
                request.logger.error("The error handler failed: \(String(reflecting: error))")
                break
            }
        }
        var response: Response
        if let httpError {
            let json = request.wantsJson || formError?.sentJson == true
            response = (json ? nil : ErrorPages.inLayout(status: status, message: httpError.message, request: request))
                ?? ErrorPages.page(
                    status: status, message: httpError.message, detail: nil, json: json,
                    fields: formError?.errors.all.map { ($0.field, $0.messages.joined(separator: " ")) } ?? [])
        } else {
            let development = settings.environment != .production
            let detail = development ? developmentDetail(error, request) : nil
            let message = development ? "The app raised an error while answering this request." : "Something went wrong on our side. Please try again later."
            response = ErrorPages.page(status: status, message: message, detail: detail, json: request.wantsJson)
        }
        response.headers.add(contentsOf: preset.headers)
        return response
    }

    private func developmentDetail(_ error: any Error, _ request: Request) -> String {
        var lines = [
            "\(type(of: error)): \(String(reflecting: error))",
            "",
            "Request: \(request.method.rawValue) \(request.fullPath)",
        ]
        if let route = request.route { lines.append("Route:   \(request.method == .HEAD ? "GET" : request.method.rawValue) \(route)") }
        if let site = request.site { lines.append("Thrown in the block defined at \(site)") }
        return lines.joined(separator: "\n")
    }

    /// A token for the session in `headers`' cookie, and the response carrying the session cookie.
    func issueCsrfToken(headers: HttpHeaders) throws -> (token: String, response: Response) {
        let request = try Request(
            method: .GET, uri: settings.basePath.isEmpty ? "/" : settings.basePath, headers: headers, body: ByteBuffer(),
            services: services, logger: logger, remoteAddress: nil)
        let token = request.csrfToken
        var response = Response()
        try services.sessions.commit(
            request.session, into: &response, path: settings.basePath.isEmpty ? "/" : settings.basePath, logger: logger)
        return (token, response)
    }
}
