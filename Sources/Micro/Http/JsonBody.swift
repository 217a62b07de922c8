import NIOHTTP1
import Foundation
import NIOCore

/// An `Encodable` value answered as JSON (`application/json`).
///
/// Route blocks that return an `Encodable` value are wrapped in it for you:
/// `app.get("/api/user") { _ in User(name: "Ann") }`.
public struct JsonBody<Value: Encodable>: ResponseConvertible {
    /// The value to encode.
    public var value: Value

    /// Wraps `value`.
    public init(_ value: Value) { self.value = value }

    public func makeResponse(for request: Request) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var response = request.response
        response.body = .bytes(ByteBuffer(bytes: try encoder.encode(value)))
        if response.contentType == nil { response.contentType = "application/json" }
        return response
    }
}
