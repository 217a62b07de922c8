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
