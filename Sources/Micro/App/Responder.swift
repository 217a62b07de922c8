import NIOHTTP1
import Logging
import NIOCore

/// The app frozen for serving: runs one request through static files, before filters, the
/// router, error handlers and after filters. Both the server and the test client use it.
final class Responder: Sendable {
    let settings: Settings
    let logger: Logger
    private let router: Router
    private let beforeFilters: [Filter]
    private let afterFilters: [Filter]
    private let errorHandlers: [ErrorHandler]
    private let staticFiles: StaticFiles?
    let services: Services

    init(definition: App.Definition, logger: Logger) throws(ConfigurationError) {
        settings = definition.settings
        self.logger = logger
        router = definition.router
        beforeFilters = definition.beforeFilters
        afterFilters = definition.afterFilters
        errorHandlers = definition.errorHandlers
        staticFiles = definition.settings.publicFolder.flatMap {
            StaticFiles(folder: $0, cacheControl: definition.settings.staticCacheControl, environment: definition.settings.environment)
        }
        if let warning = SessionSecret.startupWarning(settings) { logger.warning("\(warning)") }
        services = Services(
            settings: definition.settings,
            sessions: try Sessions(settings: settings, checks: definition.sessionChecks),
            views: try Views(folder: settings.views, environment: settings.environment),
            csrf: CsrfProtection(exemptions: definition.csrfExemptions, trustedOrigins: settings.trustedOrigins),
            securityHeaders: settings.securityHeaders,
            templateValues: definition.templateValues,
            extensions: definition.extensions)
    }

    /// Answers a request given by its parts; never throws: every failure becomes a page.
    func respond(
        method: HttpMethod, uri: String, headers: HttpHeaders, body: ByteBuffer, remoteAddress: String?
    ) async -> Response {
        let start = settings.accessLog ? NIODeadline.now() : .uptimeNanoseconds(0)
        var response: Response
        do {
            let request = try Request(
                method: method, uri: uri, headers: headers, body: body,
                services: services, logger: logger, remoteAddress: remoteAddress)
            response = await respond(to: request)
        } catch {
            response = ErrorPages.page(
                status: error.status, message: error.message, detail: nil, json: Request.prefersJson(headers))
            services.securityHeaders.apply(to: &response)
            services.securityHeaders.applyCaching(to: &response, sessionLoaded: false, signedIn: { false })
        }
        Self.finalize(&response, for: method)
        if settings.accessLog {
            let micros = (NIODeadline.now() - start).nanoseconds / 1000
            logger.info("\(method.rawValue) \(uri) \(response.status.code) \(response.body.count)B \(Double(micros) / 1000)ms")
        }
        return response
    }

    // Inlined into `respond(method:…)`, as `run` and `Router.dispatch` are. A nonisolated
    // async call that stays a call costs two calls to the runtime's `swift_task_switch` (on
    // the way in and after it returns), each checking the task's executor preference under a
    // lock; inlined, the three cost none. Counted with a `perf` uprobe on the runtime's
    // function: 5.9 calls per plain request instead of 11.7; bench/compare.sh: 0.96x the CPU
    // time per request.
    @inline(__always)
    private func respond(to request: Request) async -> Response {
        if let staticFiles, request.method == .GET || request.method == .HEAD,
            var file = staticFiles.response(for: request)
        {
            // Its own Cache-Control and validators, whoever asks: a file is the same for all.
            services.securityHeaders.apply(to: &file)
            return file
        }
        // A client with a session cookie is active: load its session so that the inactivity
        // window is renewed even by routes that never look at the session.
        if request.cookie(services.sessions.settings.cookieName) != nil { _ = request.session }
        var response = await run(request)
        // Drop the request's copy, so the headers below are edited in place.
        request.response = Response()
        if let session = request.loadedSession {
            do {
                try services.sessions.commit(session, into: &response, logger: request.logger)
            } catch {
                response = await errorResponse(for: error, request)
            }
        }
        services.securityHeaders.apply(to: &response)
        services.securityHeaders.applyCaching(
            to: &response, sessionLoaded: request.loadedSession != nil, signedIn: { request.isSignedInForHeaders })
        return response
    }

    /// CSRF protection, before filters, the route, after filters, and error handling.
    @inline(__always)  // see `respond(to:)`
    private func run(_ request: Request) async -> Response {
        var response: Response
        do {
            try services.csrf.check(request)
            for filter in beforeFilters {
                guard let match = filter.applies(to: request.path) else { continue }
                request.site = filter.site
                if !match.splat.isEmpty { request.params.splat = match.splat }
                try await filter.handler(request)
            }
            response = try await router.dispatch(request)
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

    /// The response for an error thrown by a filter or a route: the halt's response, the
    /// app's handler for it, or the default page.
    private func errorResponse(for error: any Error, _ request: Request) async -> Response {
        if let halt = error as? Halt { return halt.response }
        let httpError = error as? HttpError
        let status = httpError?.status ?? .internalServerError
        if httpError == nil, !(error is CancellationError) {
            request.logger.error("\(request.method.rawValue) \(request.path): \(String(reflecting: error))", metadata: request.site.map { ["site": "\($0)"] })
        }
        var preset = Response(status: status)
        if let httpError { preset.headers.add(contentsOf: httpError.headers) }
        for handler in errorHandlers where handler.matches(error, status) {
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
            response = ErrorPages.page(status: status, message: httpError.message, detail: nil, json: request.prefersJson)
        } else {
            let development = settings.environment != .production
            let detail = development ? developmentDetail(error, request) : nil
            let message = development ? "The app raised an error while answering this request." : "Something went wrong on our side. Please try again later."
            response = ErrorPages.page(status: status, message: message, detail: detail, json: request.prefersJson)
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
            method: .GET, uri: "/", headers: headers, body: ByteBuffer(),
            services: services, logger: logger, remoteAddress: nil)
        let token = request.csrfToken
        var response = Response()
        try services.sessions.commit(request.session, into: &response, logger: logger)
        return (token, response)
    }

    /// The plain-text answer to a request refused before the app sees it (413, 431, 408, 400,
    /// 503); no cache keeps it.
    static func refusal(_ status: HttpStatus, _ message: String) -> Response {
        var response = Response(status: status, contentType: "text/plain; charset=utf-8", body: message + "\n")
        response.headers.add(name: "Cache-Control", value: "no-store")
        finalize(&response, for: .GET)
        return response
    }

    /// What a 413 says.
    static func bodyTooLarge(limit: Int) -> String {
        "The request body is larger than \(limit) bytes."
    }

    /// Sets `Content-Length` from the body (none for 1xx, 204 and 304) and drops the body of
    /// an answer to HEAD, keeping the length GET would have had.
    static func finalize(_ response: inout Response, for method: HttpMethod) {
        let code = response.status.code
        if code < 200 || code == 204 || code == 304 {
            response.body = .empty
            response.headers.remove(name: "Content-Length")
            return
        }
        response.headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
        if method == .HEAD { response.body = .empty }
    }
}
