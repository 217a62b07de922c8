import Foundation
import MicroAuth
import MicroCore
import NIOCore

/// A response as the test client received it.
public struct TestResponse: Sendable {
    /// The status.
    public var status: HttpStatus
    /// The header fields.
    public var headers: HttpHeaders
    /// The body's bytes.
    public var body: [UInt8]

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The `Location` header of a redirect.
    public var location: String? { headers.first(name: "Location") }

    /// The `Content-Type` header.
    public var contentType: String? { headers.first(name: "Content-Type") }

    /// The body decoded from JSON (dates as ISO 8601 text, as Micro writes them).
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(T.self, from: Data(body))
    }
}
