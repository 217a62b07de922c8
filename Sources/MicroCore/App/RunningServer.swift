import Dispatch
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// A running server, as ``App/start()`` returns it.
public struct RunningServer: Sendable {
    let server: HttpServer
    /// The plain-HTTP port that redirects to HTTPS (``TlsSettings/redirectPort``).
    let redirect: HttpServer?
    /// Undoes what the start set up around the server (the certificate's reload).
    private let stopped: @Sendable () -> Void

    init(_ server: HttpServer, redirect: HttpServer? = nil, stopped: @escaping @Sendable () -> Void = {}) {
        self.server = server
        self.redirect = redirect
        self.stopped = stopped
    }

    /// The address it listens on.
    public var host: String { server.host }
    /// The port it listens on.
    public var port: Int { server.port }
    /// The port redirecting plain HTTP to HTTPS (``TlsSettings/redirectPort``; the one picked
    /// when that said 0), if any.
    public var httpRedirectPort: Int? { redirect?.port }

    /// Stops accepting, lets requests in flight finish (bounded by `shutdownTimeout`), closes.
    /// Returns whether everything finished in time. When the calling task is cancelled, it
    /// stops waiting and closes the connections still busy at once.
    @discardableResult
    public func shutdown() async -> Bool {
        defer { stopped() }
        async let redirected = redirect?.shutdown() ?? true
        let served = await server.shutdown()
        return await redirected && served
    }
}

extension App {
    /// Answers one request given by its parts, without a socket: what `MicroTesting`'s
    /// `TestClient` uses. Throws only when the app's definition is invalid.
    public func respond(
        method: HttpMethod, uri: String, headers: HttpHeaders = [:], body: ByteBuffer = ByteBuffer(),
        remoteAddress: String? = nil, localPort: Int? = nil
    ) async throws -> Response {
        try await prepare()
        let responder = try makeResponder()
        if let length = headers.first(name: "Content-Length").flatMap(Int.init), length > responder.settings.bodyLimit {
            // The server refuses it from the head alone; the test client answers the same.
            return Response.refusal(.payloadTooLarge, Response.bodyTooLarge(limit: responder.settings.bodyLimit))
        }
        return await responder.respond(method: method, uri: uri, headers: headers, body: body, remoteAddress: remoteAddress, localPort: localPort)
    }
}

extension App {
    /// A CSRF token for the session the given `Cookie` headers carry, and the response that
    /// sets the session cookie when a new session had to begin: for `MicroTesting`, whose
    /// client sends forms the way a browser does after loading the app's page.
    package func issueCsrfToken(headers: HttpHeaders) throws -> (token: String, response: Response) {
        try makeResponder().issueCsrfToken(headers: headers)
    }
}
