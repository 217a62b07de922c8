import NIOHTTP1
/// A cookie to set on the client, with its attributes (RFC 6265).
///
/// The defaults are the safe ones: `Path=/`, `HttpOnly`, `SameSite=Lax`.
///
/// ```swift
/// request.response.setCookie(Cookie(name: "theme", value: "dark", maxAge: 86_400))
/// ```
public struct Cookie: Sendable, Equatable {
    /// How a cookie travels with cross-site requests.
    public enum SameSite: String, Sendable {
        case strict = "Strict", lax = "Lax", none = "None"
    }

    public var name: String
    public var value: String
    public var path: String? = "/"
    public var domain: String? = nil
    /// Seconds until the cookie expires; 0 or less deletes it; nil makes a session cookie.
    public var maxAge: Int? = nil
    public var secure: Bool = false
    public var httpOnly: Bool = true
    public var sameSite: SameSite? = .lax

    /// A cookie with safe defaults.
    public init(
        name: String, value: String, path: String? = "/", domain: String? = nil, maxAge: Int? = nil,
        secure: Bool = false, httpOnly: Bool = true, sameSite: SameSite? = .lax
    ) {
        self.name = name
        self.value = value
        self.path = path
        self.domain = domain
        self.maxAge = maxAge
        self.secure = secure
        self.httpOnly = httpOnly
        self.sameSite = sameSite
    }

    /// The `Set-Cookie` header value. Characters a cookie cannot hold (`;`, spaces, quotes,
    /// line breaks, non-ASCII, and `%` itself) are percent-encoded in the name and value, as
    /// Rack does, so a value taken from input cannot add attributes; so is `=` in the name,
    /// which would otherwise end it. ``Request/cookie(_:)`` decodes them. The path and domain
    /// lose such characters.
    public var headerValue: String {
        var parts = ["\(PercentEncoding.encode(name, keeping: Self.isNameOctet))=\(Self.encoded(value))"]
        if let path { parts.append("Path=\(Self.stripped(path))") }
        if let domain { parts.append("Domain=\(Self.stripped(domain))") }
        if let maxAge { parts.append("Max-Age=\(max(maxAge, 0))") }
        if secure { parts.append("Secure") }
        if httpOnly { parts.append("HttpOnly") }
        if let sameSite { parts.append("SameSite=\(sameSite.rawValue)") }
        return parts.joined(separator: "; ")
    }

    /// RFC 6265's cookie-octet, less `%` (kept for the escapes).
    private static func isCookieOctet(_ byte: UInt8) -> Bool {
        byte == 0x21 || (0x23...0x2B).contains(byte) && byte != 0x25 || (0x2D...0x3A).contains(byte)
            || (0x3C...0x5B).contains(byte) || (0x5D...0x7E).contains(byte)
    }

    private static func isNameOctet(_ byte: UInt8) -> Bool {
        byte != UInt8(ascii: "=") && isCookieOctet(byte)
    }

    private static func encoded(_ text: String) -> String {
        PercentEncoding.encode(text, keeping: isCookieOctet)
    }

    private static func stripped(_ text: String) -> String {
        String(decoding: text.utf8.filter { isCookieOctet($0) || $0 == 0x25 }, as: UTF8.self)
    }
}

extension Response {
    /// Adds a `Set-Cookie` header for `cookie`.
    public mutating func setCookie(_ cookie: Cookie) {
        headers.add(name: "Set-Cookie", value: cookie.headerValue)
    }
}

/// Parsing of `Cookie` request headers.
enum Cookies {
    /// The name/value pairs of `Cookie` header values (`a=1; b=2`). Pairs without `=` are
    /// skipped; values in double quotes lose their quotes; names are percent-decoded (as
    /// ``Cookie/headerValue`` encodes them), values are left for ``Request/cookie(_:)``.
    /// Works on UTF-8 bytes: cookies are long (a session is hundreds of bytes) and read on
    /// every request.
    static func parse<S: StringProtocol>(_ headerValues: [S]) -> [(name: String, value: String)] {
        var cookies: [(name: String, value: String)] = []
        for header in headerValues {
            // Over the header's own storage: a copy into an array and its checked indexing cost
            // tens of instructions a byte.
            let parsed: Void? = header.utf8.withContiguousStorageIfAvailable { bytes in
                parse(bytes, into: &cookies)
            }
            if parsed == nil { Array(header.utf8).withUnsafeBufferPointer { parse($0, into: &cookies) } }
        }
        return cookies
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, into cookies: inout [(name: String, value: String)]) {
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: ";") { end += 1 }
            if let equals = bytes[start..<end].firstIndex(of: UInt8(ascii: "=")) {
                let name = trimmed(bytes[start..<equals])
                var value = trimmed(bytes[(equals + 1)..<end])
                if value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") {
                    value = value.dropFirst().dropLast()
                }
                if !name.isEmpty {
                    var text = String(decoding: name, as: UTF8.self)
                    if name.contains(UInt8(ascii: "%")) { text = PercentEncoding.decode(Substring(text)) ?? text }
                    cookies.append((text, String(decoding: value, as: UTF8.self)))
                }
            }
            start = end + 1
        }
    }

    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        var slice = bytes
        while let first = slice.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { slice = slice.dropFirst() }
        while let last = slice.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { slice = slice.dropLast() }
        return slice
    }
}
