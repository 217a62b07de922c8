// SwiftNIO's HTTP types, under Micro's names only: an app writes `HttpHeaders`, never also
// `HTTPHeaders`. The body's buffer is exported so that an app needs only `import Micro`.
@_exported import struct NIOCore.ByteBuffer
import NIOHTTP1

/// An HTTP request method (`GET`, `POST`, ...). SwiftNIO's type, under Micro's name.
public typealias HttpMethod = NIOHTTP1.HTTPMethod

/// An HTTP response status (`.ok`, `.notFound`, `.custom(code:reasonPhrase:)`).
public typealias HttpStatus = NIOHTTP1.HTTPResponseStatus

/// HTTP header fields: ordered, case-insensitive names, repeatable.
public typealias HttpHeaders = NIOHTTP1.HTTPHeaders
