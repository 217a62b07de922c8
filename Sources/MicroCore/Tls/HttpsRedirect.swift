import Logging
import NIOCore

/// What answers on ``TlsSettings/redirectPort``: every request, `308 Permanent Redirect` to
/// the same path and query over HTTPS (308 keeps a form's method and body, where 301 lets a
/// browser turn a POST into a GET). The host is the public URL's when there is one, else the
/// request's own, which must be one the app answers for: a redirect never points a browser
/// at a host the app would refuse.
struct HttpsRedirect: HttpResponding {
    let serverSettings: ServerSettings
    let logger: Logger
    /// The HTTPS port, left out of the address when it is 443.
    let tlsPort: Int
    let publicUrl: PublicUrl?
    let allowedHosts: AllowedHosts

    init(settings: Settings, serverSettings: ServerSettings, tlsPort: Int, logger: Logger) {
        self.serverSettings = serverSettings
        self.logger = logger
        self.tlsPort = tlsPort
        publicUrl = settings.parsedPublicUrl
        allowedHosts = AllowedHosts(settings.allowedHosts, publicHost: publicUrl?.host)
    }

    func respond(
        method: HttpMethod, uri: String, headers: HttpHeaders, body: ByteBuffer, remoteAddress: String?, localPort: Int?
    ) async -> Response {
        // An absolute-form target (`GET http://host/path`) keeps only its path.
        var path = Substring(uri)
        if !path.hasPrefix("/") {
            guard let schemeEnd = path.range(of: "://") else { return Response.refusal(.badRequest, "Expected a path.") }
            let rest = path[schemeEnd.upperBound...]
            path = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        let origin: String
        if let publicUrl, publicUrl.isHttps {
            origin = publicUrl.origin
        } else {
            guard let host = headers.first(name: "Host") else {
                return Response.refusal(.badRequest, "This port redirects to HTTPS, which needs the request's Host.")
            }
            guard allowedHosts.allows(host), let name = Self.name(host), Self.isPlainHost(name) else {
                return Response.refusal(.misdirectedRequest, AllowedHosts.refusal(of: host).message)
            }
            origin = "https://" + name + (tlsPort == 443 ? "" : ":\(tlsPort)")
        }
        var response = Response(status: .permanentRedirect, contentType: "text/plain; charset=utf-8", body: "This app is served over HTTPS.\n")
        response.headers.replaceOrAdd(name: "Location", value: origin + path)
        response.headers.add(name: "Cache-Control", value: "no-store")
        response.finalize(for: method)
        if serverSettings.accessLog { logger.info("\(method.rawValue) \(path.split(separator: "?", maxSplits: 1).first ?? "") 308 to HTTPS") }
        return response
    }

    /// Whether `name` is a host name or IP literal and nothing else (letters, digits, `-` and
    /// `.`, or an IPv6 literal in brackets): the `Host` check allows what would match a domain's
    /// suffix (`evil.example/.example.com`), which a `Location` must not carry.
    private static func isPlainHost(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty else { return false }
        func isName(_ byte: UInt8) -> Bool {
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E
        }
        if bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") {
            return bytes.count > 2 && bytes.dropFirst().dropLast().allSatisfy { isName($0) || $0 == UInt8(ascii: ":") }
        }
        return bytes.allSatisfy(isName)
    }

    /// The host of a `Host` value, without its port.
    private static func name(_ host: String) -> String? {
        var host = host
        return host.withUTF8 { bytes in AllowedHosts.host(of: bytes).map { String(decoding: bytes[$0], as: UTF8.self) } }
    }
}
