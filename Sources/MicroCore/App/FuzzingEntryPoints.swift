import Foundation
import Mustache
import NIOCore

/// Micro's parsers of client input, reachable from the fuzz targets in `fuzz/` (a separate
/// package built in release, where `@testable import` is not available). Each one only
/// forwards to the code a request runs; none is part of the public API.
@_spi(Fuzzing)
public enum FuzzingEntryPoints {
    /// A query string or `application/x-www-form-urlencoded` body, as ``Request`` decodes it.
    public static func urlEncoded(_ text: String) throws(HttpError) -> [(name: String, value: String)] {
        try FormDecoding.urlEncoded(text, limits: .none)
    }

    /// Percent-decoding of a path or cookie (`plusAsSpace` for forms); nil when malformed.
    public static func percentDecode(_ text: String, plusAsSpace: Bool) -> String? {
        PercentEncoding.decode(Substring(text), plusAsSpace: plusAsSpace)
    }

    /// Whether ``Request`` accepts `path`'s escapes.
    public static func isValidPath(_ path: String) -> Bool {
        PercentEncoding.isValid(path)
    }

    /// Percent-encoding of everything outside RFC 3986's unreserved set.
    public static func percentEncode(_ text: String) -> String {
        PercentEncoding.encode(text)
    }

    /// A `multipart/form-data` body under its `Content-Type` header, as ``Request`` decodes it.
    public static func multipart(contentType: String, body: [UInt8]) throws(HttpError) -> (
        fields: [(name: String, value: String)], files: [UploadedFile]
    ) {
        let attributes = HeaderAttributes(contentType)
        return try FormDecoding.multipart(ByteBuffer(bytes: body), boundary: attributes["boundary"] ?? "")
    }

    /// The name/value pairs of `Cookie` header values, as ``Request/cookie(_:)`` reads them
    /// (values still percent-encoded).
    public static func cookies(_ headerValues: [String]) -> [(name: String, value: String)] {
        Cookies.parse(headerValues)
    }

    /// The session inside a decrypted cookie; nil for anything the codec did not write.
    public static func decodeSession(_ bytes: [UInt8]) -> SessionData? {
        SessionCodec.decode(bytes)
    }

    /// The bytes the cookie session store encrypts for `data`.
    public static func encodeSession(_ data: SessionData) -> [UInt8] {
        SessionCodec.encode(data)
    }

    /// Base64url as session cookies use it; nil unless canonical.
    public static func base64UrlDecode(_ text: String) -> [UInt8]? {
        Base64Url.decode(text)
    }

    /// The text of `bytes` in base64url.
    public static func base64UrlEncode(_ bytes: [UInt8]) -> String {
        Base64Url.encode(bytes)
    }

    /// `value` rendered as the views render a page: in a template that shows it as
    /// `{{value}}` in text, in a quoted attribute, in a section and in a partial, each
    /// separated by `|`: `E|<a title="E">E</a>|<b>E</b>`, where E is `value` escaped.
    public static func renderInTemplates(_ value: String) throws -> String {
        var library = MustacheLibrary()
        try Views.register(#"{{value}}|<a title="{{value}}">{{#list}}{{.}}{{/list}}</a>|{{> part}}"#, named: "page", in: &library)
        try Views.register("<b>{{value}}</b>", named: "part", in: &library)
        return library.render(["value": value, "list": [value]], withTemplate: "page") ?? ""
    }
}

extension CookieSessionStore {
    /// The cookie value holding `plain` sealed as ``save(_:)`` seals a session's bytes, so a
    /// fuzzer can reach the decoding behind the decryption.
    @_spi(Fuzzing)
    public func sealForFuzzing(_ plain: [UInt8]) throws -> String {
        try seal(plain)
    }
}
