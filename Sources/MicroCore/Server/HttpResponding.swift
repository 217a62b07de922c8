import Logging
import NIOCore

/// What the server hands each request to (the app, frozen for serving), so that the server
/// knows nothing of routes, sessions or views.
protocol HttpResponding: Sendable {
    /// The limits and timeouts the server enforces.
    var serverSettings: ServerSettings { get }
    /// Where the server logs (connection limits, timeouts).
    var logger: Logger { get }
    /// The answer to one request, which came from `remoteAddress` to the server's `localPort`;
    /// never throws: every failure is a page.
    func respond(
        method: HttpMethod, uri: String, headers: HttpHeaders, body: ByteBuffer, remoteAddress: String?, localPort: Int?
    ) async -> Response
}
