import NIOHTTP1
import Foundation
import NIOCore

/// An `Encodable` value answered as JSON (`application/json`), its keys sorted and its dates
/// as ISO 8601 text to the second (`"2024-03-01T12:30:05Z"`), which ``Request/decode(_:)``
/// reads back.
///
/// Route blocks that return an `Encodable` value are wrapped in it for you:
/// `app.get("/api/note") { _ in Note(title: "Rota") }`.
public struct JsonBody<Value: Encodable>: ResponseConvertible {
    /// The value to encode.
    public var value: Value

    /// Wraps `value`.
    public init(_ value: Value) { self.value = value }

    public func makeResponse(for request: Request) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // What scripts read and what a JSON body sends in: not the encoder's default, seconds
        // since 2001.
        encoder.dateEncodingStrategy = .iso8601
        var response = request.response
        response.body = .bytes(ByteBuffer(bytes: try encoder.encode(value)))
        if response.contentType == nil { response.contentType = "application/json" }
        return response
    }
}
