// The routing DSL of the app and its groups: `get`, `post`, `put`, `patch`, `delete` and
// `options`, each for blocks that return a `ResponseConvertible` (String, Response, ...), an
// `Encodable` value (answered as JSON), or nothing (the answer is `request.response`). All of
// them go through `on`.

extension RouteBuilder {
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

    /// Adds a GET route; HEAD requests are answered by it too, without the body.
    ///
    /// ```swift
    /// app.get("/items/:id") { request in "item \(request.params["id"]!)" }
    /// ```
    public func get<R: ResponseConvertible>(_ pattern: String, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> R) {
        on(.GET, pattern, file: file, line: line, handler)
    }

    /// Adds a GET route, whose block returns an `Encodable` value answered as JSON.
    @_disfavoredOverload
    public func get<R: Encodable & SendableMetatype>(_ pattern: String, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> R) {
        on(.GET, pattern, file: file, line: line, handler)
    }

    /// Adds a GET route, whose block returns nothing: the answer is `request.response`.
    @_disfavoredOverload
    public func get(_ pattern: String, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> Void) {
        on(.GET, pattern, file: file, line: line, handler)
    }

    /// Adds a POST route.
    ///
    /// ```swift
    /// app.post("/items/:id") { request in "item \(request.params["id"]!)" }
    /// ```
    public func post<R: ResponseConvertible>(_ pattern: String, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> R) {
        on(.POST, pattern, file: file, line: line, handler)
    }

    /// Adds a POST route, whose block returns an `Encodable` value answered as JSON.
    @_disfavoredOverload
    public func post<R: Encodable & SendableMetatype>(_ pattern: String, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> R) {
        on(.POST, pattern, file: file, line: line, handler)
    }

    /// Adds a POST route, whose block returns nothing: the answer is `request.response`.
    @_disfavoredOverload
    public func post(_ pattern: String, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> Void) {
        on(.POST, pattern, file: file, line: line, handler)
    }

    /// Adds a PUT route.
    ///
    /// ```swift
    /// app.put("/items/:id") { request in "item \(request.params["id"]!)" }
    /// ```
    public func put<R: ResponseConvertible>(_ pattern: String, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> R) {
        on(.PUT, pattern, file: file, line: line, handler)
    }

    /// Adds a PUT route, whose block returns an `Encodable` value answered as JSON.
    @_disfavoredOverload
    public func put<R: Encodable & SendableMetatype>(_ pattern: String, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> R) {
        on(.PUT, pattern, file: file, line: line, handler)
    }

    /// Adds a PUT route, whose block returns nothing: the answer is `request.response`.
    @_disfavoredOverload
    public func put(_ pattern: String, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> Void) {
        on(.PUT, pattern, file: file, line: line, handler)
    }

    /// Adds a PATCH route.
    ///
    /// ```swift
    /// app.patch("/items/:id") { request in "item \(request.params["id"]!)" }
    /// ```
    public func patch<R: ResponseConvertible>(_ pattern: String, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> R) {
        on(.PATCH, pattern, file: file, line: line, handler)
    }

    /// Adds a PATCH route, whose block returns an `Encodable` value answered as JSON.
    @_disfavoredOverload
    public func patch<R: Encodable & SendableMetatype>(_ pattern: String, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> R) {
        on(.PATCH, pattern, file: file, line: line, handler)
    }

    /// Adds a PATCH route, whose block returns nothing: the answer is `request.response`.
    @_disfavoredOverload
    public func patch(_ pattern: String, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> Void) {
        on(.PATCH, pattern, file: file, line: line, handler)
    }

    /// Adds a DELETE route.
    ///
    /// ```swift
    /// app.delete("/items/:id") { request in "item \(request.params["id"]!)" }
    /// ```
    public func delete<R: ResponseConvertible>(_ pattern: String, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> R) {
        on(.DELETE, pattern, file: file, line: line, handler)
    }

    /// Adds a DELETE route, whose block returns an `Encodable` value answered as JSON.
    @_disfavoredOverload
    public func delete<R: Encodable & SendableMetatype>(_ pattern: String, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> R) {
        on(.DELETE, pattern, file: file, line: line, handler)
    }

    /// Adds a DELETE route, whose block returns nothing: the answer is `request.response`.
    @_disfavoredOverload
    public func delete(_ pattern: String, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> Void) {
        on(.DELETE, pattern, file: file, line: line, handler)
    }

    /// Adds an OPTIONS route.
    ///
    /// ```swift
    /// app.options("/items/:id") { request in "item \(request.params["id"]!)" }
    /// ```
    public func options<R: ResponseConvertible>(_ pattern: String, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> R) {
        on(.OPTIONS, pattern, file: file, line: line, handler)
    }

    /// Adds an OPTIONS route, whose block returns an `Encodable` value answered as JSON.
    @_disfavoredOverload
    public func options<R: Encodable & SendableMetatype>(_ pattern: String, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> R) {
        on(.OPTIONS, pattern, file: file, line: line, handler)
    }

    /// Adds an OPTIONS route, whose block returns nothing: the answer is `request.response`.
    @_disfavoredOverload
    public func options(_ pattern: String, file: String = #fileID, line: UInt = #line, _ handler: @escaping @Sendable (Request) async throws -> Void) {
        on(.OPTIONS, pattern, file: file, line: line, handler)
    }

}
