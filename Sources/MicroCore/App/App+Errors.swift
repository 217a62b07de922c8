// Error handlers: the pages for errors and for requests no route matched.

extension App {
    /// Answers requests that no route matched (instead of the default 404 page).
    public func notFound<R: ResponseConvertible>(
        file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> R
    ) {
        let site = SourceSite(file: file, line: line)
        addErrorHandler(scope: nil, what: "404", site: site, matches: { _, status in status == .notFound }) { request, _ in
            try await handler(request).makeResponse(for: request)
        }
    }

    /// Answers errors that end in `status` (a thrown ``HttpError`` of that status, or 500 for
    /// any other error), instead of the default page. `request.response.status` is preset.
    public func error<R: ResponseConvertible>(
        _ status: HttpStatus, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request, any Error) async throws -> R
    ) {
        let site = SourceSite(file: file, line: line)
        addErrorHandler(scope: nil, what: "\(status.code)", site: site, matches: { _, errorStatus in errorStatus == status }) { request, error in
            try await handler(request, error).makeResponse(for: request)
        }
    }

    /// Answers errors of type `type`, with the error itself (status 500 unless you set one).
    public func error<E: Error, R: ResponseConvertible & SendableMetatype>(
        _ type: E.Type, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request, E) async throws -> R
    ) {
        let site = SourceSite(file: file, line: line)
        addErrorHandler(scope: nil, what: "\(E.self)", site: site, matches: { error, _ in error is E }) { request, error in
            try await handler(request, error as! E).makeResponse(for: request)
        }
    }

    /// Adds an error handler, of the app or of a route group.
    func addErrorHandler(
        scope: PathScope?, what: String, site: SourceSite, matches: @escaping @Sendable (any Error, HttpStatus) -> Bool,
        _ handler: @escaping @Sendable (Request, any Error) async throws -> Response
    ) {
        update { $0.errorHandlers.append(ErrorHandler(matches: matches, scope: scope, handler: handler, what: what, site: site)) }
    }
}
