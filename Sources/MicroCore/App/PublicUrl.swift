/// The app's external address (``Settings/publicUrl``): `https://tools.example.com`, with an
/// optional path the app is mounted under (`https://example.com/tools`).
///
/// Its host is an allowed host, its origin a trusted one for the CSRF check and the origin of
/// the absolute URLs the app builds (``Request/absoluteUrl(_:)``); `https` makes the session
/// cookie `Secure` in any environment.
public struct PublicUrl: Sendable, Equatable {
    /// `http` or `https`.
    public let scheme: String
    /// The host, lowercase, without a port (`tools.example.com`, `[::1]`).
    public let host: String
    /// The origin: scheme, host and a port when it is not the scheme's default.
    public let origin: String
    /// The port: the origin's, else the scheme's default (443 for `https`, 80 for `http`).
    public let port: Int
    /// The path the app is mounted under (`/tools`); empty for none.
    public let path: String

    /// Reads `text`; throws a message saying what a public URL looks like.
    public init(_ text: String) throws(ConfigurationError) {
        var rest = Substring(text)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        let path: Substring
        if let schemeEnd = rest.range(of: "://"), let slash = rest[schemeEnd.upperBound...].firstIndex(of: "/") {
            path = rest[slash...]
            rest = rest[..<slash]
        } else {
            path = ""
        }
        guard let origin = CsrfProtection.origin(String(rest)), let hostStart = origin.range(of: "://")?.upperBound else {
            throw ConfigurationError("'\(text)' is not a public URL: http:// or https://, a host, an optional port and an optional path, such as https://tools.example.com or https://example.com/tools.")
        }
        if !path.isEmpty, let problem = Settings.basePathProblem(String(path)) {
            throw ConfigurationError("the path of '\(text)': \(problem)")
        }
        self.origin = origin
        scheme = String(origin[..<origin.range(of: "://")!.lowerBound])
        let hostAndPort = origin[hostStart...]
        if hostAndPort.first == "[" {
            host = String(hostAndPort[...hostAndPort.firstIndex(of: "]")!])
        } else {
            host = String(hostAndPort.prefix { $0 != ":" })
        }
        // The origin keeps a port only when it is not the default, and only digits.
        let afterHost = hostAndPort.dropFirst(host.count)
        port = afterHost.isEmpty ? (scheme == "https" ? 443 : 80) : Int(afterHost.dropFirst()) ?? 0
        self.path = String(path)
    }

    /// Whether it is `https`.
    public var isHttps: Bool { scheme == "https" }
}
