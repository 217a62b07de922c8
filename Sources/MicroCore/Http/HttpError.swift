import NIOHTTP1

/// An error that answers the request with its status and message instead of a 500.
///
/// Throw it for a client's mistake; Micro renders its status page (or your `app.error(...)`
/// handler) with the message.
///
/// ```swift
/// guard let id = Int(request.params["id"] ?? "") else {
///     throw HttpError(.badRequest, "id must be a number")
/// }
/// ```
public struct HttpError: Error, Sendable, CustomStringConvertible {
    /// The status to answer with.
    public var status: HttpStatus
    /// What went wrong, in words the client can act on.
    public var message: String
    /// Extra header fields for the response (`Allow`, `Retry-After`, ...).
    public var headers: HttpHeaders

    /// An error with a status and a message.
    public init(_ status: HttpStatus, _ message: String? = nil, headers: HttpHeaders = [:]) {
        self.status = status
        self.message = message ?? status.reasonPhrase
        self.headers = headers
    }

    public var description: String { "\(status.code) \(status.reasonPhrase): \(message)" }
}
