import NIOHTTP1
import NIOCore

/// What a route answers: a status, headers and a body.
///
/// ```swift
/// app.get("/teapot") { _ in
///     Response(status: .imATeapot, contentType: "text/plain", body: "short and stout")
/// }
/// ```
public struct Response: Sendable {
    /// The status line's code and reason.
    public var status: HttpStatus
    /// The header fields, in order.
    public var headers: HttpHeaders
    /// The body: bytes, a file streamed from disk, or nothing.
    public var body: ResponseBody

    /// A response with the given parts; `200 OK` with no body by default.
    public init(status: HttpStatus = .ok, headers: HttpHeaders = [:], body: ResponseBody = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with a text body and its content type.
    public init(status: HttpStatus = .ok, contentType: String, body: String) {
        self.init(status: status, body: .bytes(ByteBuffer(string: body)))
        self.contentType = contentType
    }

    /// The `Content-Type` header.
    public var contentType: String? {
        get { headers.first(name: "Content-Type") }
        set {
            if let newValue { headers.replaceOrAdd(name: "Content-Type", value: newValue) } else { headers.remove(name: "Content-Type") }
        }
    }

    /// Whether the content type is `text/html` (any case, any parameters).
    var isHtml: Bool {
        guard let type = headers.first(name: "Content-Type") else { return false }
        var utf8 = type.utf8.makeIterator()
        // ASCII letters compared without case ("/" | 0x20 is itself).
        for expected in "text/html".utf8 {
            guard let byte = utf8.next(), byte | 0x20 == expected else { return false }
        }
        return true
    }

    /// Replaces the body with a text.
    public mutating func setBody(_ text: String) {
        body = .bytes(ByteBuffer(string: text))
    }
}
