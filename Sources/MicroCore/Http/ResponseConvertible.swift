import NIOHTTP1
import Foundation
import NIOCore

/// What a route block can return: a `String`, a ``Response``, an ``HttpStatus``, bytes,
/// or (through ``JsonBody``) anything `Encodable`.
public protocol ResponseConvertible: SendableMetatype {
    /// The response this value makes, given the response the route has built so far.
    func makeResponse(for request: Request) throws -> Response
}

extension Response: ResponseConvertible {
    public func makeResponse(for request: Request) throws -> Response { self }
}

extension String: ResponseConvertible {
    /// The route's response with this text as its body (`text/html; charset=utf-8` unless the
    /// route set another content type), as Sinatra does.
    public func makeResponse(for request: Request) throws -> Response {
        var response = request.response
        response.setBody(self)
        if response.contentType == nil { response.contentType = "text/html; charset=utf-8" }
        return response
    }
}

extension Substring: ResponseConvertible {
    public func makeResponse(for request: Request) throws -> Response {
        try String(self).makeResponse(for: request)
    }
}

extension HttpStatus: ResponseConvertible {
    /// The route's response with this status and no body.
    public func makeResponse(for request: Request) throws -> Response {
        var response = request.response
        response.status = self
        return response
    }
}

extension ByteBuffer: ResponseConvertible {
    /// The route's response with these bytes (`application/octet-stream` unless set).
    public func makeResponse(for request: Request) throws -> Response {
        var response = request.response
        response.body = .bytes(self)
        if response.contentType == nil { response.contentType = "application/octet-stream" }
        return response
    }
}

extension Never: ResponseConvertible {
    /// A block that always halts, redirects or passes returns `Never`.
    public func makeResponse(for request: Request) throws -> Response {
        switch self {}
    }
}
