import NIOHTTP1
import Foundation
import Logging
import NIOCore

/// One HTTP request on its way through the app, and the response being built for it.
///
/// A route block receives it: read `params`, `headers` and `body`; set `response.status`,
/// `response.headers` and `response.contentType`; stop from anywhere with ``halt(_:_:)``,
/// ``redirect(to:status:)`` or ``pass()``.
public final class Request {
    /// The method; a HEAD request is answered by the GET route.
    public let method: HttpMethod
    /// The request target as sent: path and query string.
    public let uri: String
    /// The path, still percent-encoded, without the query string, and within the app: without
    /// the path it is mounted under (``basePath``).
    public let path: String
    /// The path the app is mounted under, as the browser sees it (`/tools`); empty when none.
    public let basePath: String
    /// The query string after `?`, still encoded; empty when there is none.
    public let queryString: String
    /// The request's header fields.
    public let headers: HttpHeaders
    /// The request body (empty when there is none).
    public let body: ByteBuffer
    /// Path parameters, form fields and query parameters, merged (see ``Params``).
    public internal(set) var params: Params
    /// The response being built: routes and filters set its status, headers and content type.
    public var response = Response()
    /// The app's settings.
    public var settings: Settings { services.settings }

    /// The sessions' settings in effect (the cookie's name, the lifetimes, the revocations),
    /// for a plugin that lists, revokes or recognises sessions.
    public var sessionSettings: SessionSettings { services.sessions.settings }
    /// The request's id: a trusted proxy's `X-Request-Id`, else one made for it. The answer
    /// carries it back in `X-Request-Id`, and ``logger``'s lines as `request_id`.
    public let id: String
    /// The app's logger, with the request's ``id`` in each line's metadata (`request_id`), so
    /// that one request can be followed through the log.
    public lazy var logger: Logger = {
        var logger = self.appLogger
        logger[metadataKey: "request_id"] = .string(self.id)
        return logger
    }()
    private let appLogger: Logger
    /// The address of the connection's other end, when the request came over a socket: the
    /// client's, or its proxy's (see ``clientAddress``).
    public let remoteAddress: String?
    /// The port of this server that the connection came to, when the request came over a
    /// socket: what a client cannot choose, unlike the port in ``host``.
    public let localPort: Int?
    /// The client's address: ``remoteAddress``, or, when that is one of
    /// ``Settings/trustedProxies``, the client's address as the proxies forwarded it in
    /// `X-Forwarded-For`. Written as `inet_ntop` writes it (`2001:db8::1`; an IPv4-mapped
    /// address as IPv4), so one client always reads the same. The sign-in throttle counts
    /// failures under it.
    public private(set) lazy var clientAddress: String? = services.proxies.clientAddress(peer: remoteAddress, headers: headers)
    /// Whether the connection comes from one of ``Settings/trustedProxies``: what makes the
    /// headers a proxy adds (`X-Forwarded-For`, an identity it vouches for) worth reading.
    public var isFromTrustedProxy: Bool { services.proxies.trusts(remoteAddress) }
    /// The host (and port) the client sent the request to: `X-Forwarded-Host` from a trusted
    /// proxy, else the `Host` header. The client wrote it: check it against a list of your
    /// own hosts before building absolute links (a password-reset mail, say) from it.
    public var host: String? {
        services.proxies.forwardedHost(peer: remoteAddress, headers: headers) ?? headers.first(name: "Host")
    }
    /// The pattern of the route that is answering, once one matched.
    public internal(set) var route: RoutePattern?
    /// Where the filter or route now running was defined, for the development error page.
    var site: SourceSite?
    /// Sessions, views, CSRF: the app's services.
    package let services: Services
    /// The session, once something asked for it.
    var loadedSession: Session?
    /// Values that filters computed for the handlers, by their key type.
    public var storage = RequestStorage()
    /// Whether the request's own header fields (HTTP Basic credentials, a bearer token)
    /// authenticated it, for this request only, rather than a session cookie: such an answer
    /// is private to its client, and a request carrying no session cookie needs no CSRF token.
    public package(set) var isAuthenticatedByHeader = false
    /// The flash, with the session.
    var loadedFlash: Flash?
    /// Where the route shows its refused form again, once it named it.
    var namedFormPage: FormPage?
    /// The refused form a redirect brought to this page, once taken out of the session.
    var takenForm: FormError??
    /// The `Cookie` header's pairs, parsed when first asked for.
    private var parsedCookies: [(name: String, value: String)]?

    /// Makes a request from its parts. Throws a 400 ``HttpError`` for a malformed target,
    /// query string or form body.
    init(
        method: HttpMethod, uri: String, headers: HttpHeaders, body: ByteBuffer,
        services: Services, logger: Logger, remoteAddress: String?, localPort: Int? = nil, id: String = RequestId.next()
    ) throws(HttpError) {
        self.id = id
        self.services = services
        self.method = method
        self.uri = uri
        self.headers = headers
        self.body = body
        appLogger = logger
        self.remoteAddress = remoteAddress
        self.localPort = localPort
        // Room for the fields a page usually carries (content type, length, date, four
        // security headers, Cache-Control, Vary, a cookie, the request's id), so adding them
        // grows nothing.
        response.headers.reserveCapacity(11)

        let target = try Self.originForm(uri)
        // Searched byte by byte: a `Character` search would break the target into grapheme
        // clusters, which took a tenth of a plain route's time in the framework.
        var path: String
        if let question = target.utf8.firstIndex(of: UInt8(ascii: "?")) {
            path = String(target[..<question])
            queryString = String(target[target.utf8.index(after: question)...])
        } else {
            path = String(target)
            queryString = ""
        }
        guard PercentEncoding.isValid(path) else {
            throw HttpError(.badRequest, "Malformed percent-encoding in the request path.")
        }
        let mountedUnder = services.settings.basePath
        if !mountedUnder.isEmpty {
            guard PathScope(prefix: mountedUnder).contains(path) else {
                throw HttpError(.notFound, "\(path) is outside this app, which is under \(mountedUnder).")
            }
            path = path.utf8.count == mountedUnder.utf8.count ? "/" : String(path.dropFirst(mountedUnder.count))
            basePath = mountedUnder
        } else {
            basePath = services.proxies.forwardedPrefix(peer: remoteAddress, headers: headers) ?? ""
        }
        self.path = path
        params = Params()
        if !queryString.isEmpty {
            params.query = try FormDecoding.urlEncoded(queryString, limits: .query(services.settings))
        }
        try decodeFormBody()
    }

    /// The path with its query string, as a browser would show it: `/tools?x=1`.
    public var fullPath: String { queryString.isEmpty ? path : path + "?" + queryString }

    /// The value of the cookie `name` sent by the client (the first, when it sent several).
    public func cookie(_ name: String) -> String? {
        if parsedCookies == nil { parsedCookies = Cookies.parse(headers["Cookie"]) }
        // Browsers send the most specific cookie first; a later one of the same name may have
        // been planted by a sibling subdomain.
        guard let value = parsedCookies?.first(where: { $0.name == name })?.value else { return nil }
        return ByteScan.contains(UInt8(ascii: "%"), in: value) ? PercentEncoding.decode(Substring(value)) ?? value : value
    }

    /// The path of `path` (one of the app's own, `/notes/7`) as the browser sees it: with the
    /// path the app is mounted under (``Settings/basePath`` or a trusted proxy's
    /// `X-Forwarded-Prefix`), for links. Redirects add it themselves.
    public func url(_ path: String) -> String {
        basePath.isEmpty || !path.hasPrefix("/") ? path : basePath + path
    }

    /// The service of type `T` the app registered (``App/register(_:)``).
    public func service<T: Sendable>(_ type: T.Type = T.self) -> T? {
        services.service(type)
    }

    /// Whether the client prefers JSON to HTML (its `Accept` names JSON and not HTML).
    public var prefersJson: Bool { Self.prefersJson(headers) }

    /// Whether the request is answered as a script's: it asks for JSON (``prefersJson``), or
    /// its path is in a route group that answers JSON. Such a request that needs a signed-in
    /// user gets a `401` rather than a redirect, and its errors are JSON.
    public var wantsJson: Bool { prefersJson || services.answers(for: path) == .json }

    static func prefersJson(_ headers: HttpHeaders) -> Bool {
        guard let accept = headers.first(name: "Accept")?.lowercased() else { return false }
        return accept.contains("application/json") && !accept.contains("text/html")
    }

    /// Stops the request here and answers `status` with `body`, keeping the headers set so far.
    ///
    /// ```swift
    /// guard allowed else { try request.halt(.forbidden, "Not for you.") }
    /// ```
    ///
    /// The body is plain text (`text/plain`) unless the route set another content type first:
    /// a message that quotes what the client sent (`"No item \(id)"`) cannot become markup.
    /// Send HTML with ``halt(_:html:)``, or throw an ``HttpError`` for the error page.
    public func halt(_ status: HttpStatus, _ body: String? = nil) throws -> Never {
        var response = self.response
        response.status = status
        if let body {
            response.setBody(body)
            if response.contentType == nil { response.contentType = "text/plain; charset=utf-8" }
        } else {
            response.body = .empty
        }
        throw Halt(response: response)
    }

    /// Stops the request here and answers `status` with the page `html`, which the route
    /// vouches for: escape what it quotes with ``Html/escape(_:)``.
    ///
    /// ```swift
    /// try request.halt(.notFound, html: "<p>No item <b>\(Html.escape(id))</b>.</p>")
    /// ```
    public func halt(_ status: HttpStatus, html: String) throws -> Never {
        var response = self.response
        response.status = status
        response.setBody(html)
        response.contentType = "text/html; charset=utf-8"
        throw Halt(response: response)
    }

    /// Stops the request here and answers with `response`.
    public func halt(_ response: Response) throws -> Never {
        throw Halt(response: response)
    }

    /// Stops the request here and redirects to `location`: 303 See Other after a non-GET
    /// request, 302 Found otherwise (Sinatra's choice), or `status` when given.
    public func redirect(to location: String, status: HttpStatus? = nil) throws -> Never {
        // A line break would split the Location header: refuse rather than answer it.
        guard !location.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) else {
            throw HttpError(.badRequest, "The redirect location holds a line break.")
        }
        var response = self.response
        response.status = status ?? (method == .GET || method == .HEAD ? .found : .seeOther)
        // One of the app's own paths is where the browser sees it: under the base path.
        response.headers.replaceOrAdd(name: "Location", value: url(location))
        response.body = .empty
        throw Halt(response: response)
    }

    /// Leaves this route and lets the next matching one answer (404 when there is none).
    public func pass() throws -> Never {
        throw PassToNextRoute()
    }

    private func decodeFormBody() throws(HttpError) {
        guard body.readableBytes > 0, let contentType = headers.first(name: "Content-Type") else { return }
        let attributes = HeaderAttributes(contentType)
        switch attributes.value.lowercased() {
        case "application/x-www-form-urlencoded":
            params.form = try FormDecoding.urlEncoded(body, limits: .body(services.settings))
        case "multipart/form-data":
            let parts = try FormDecoding.multipart(body, boundary: attributes["boundary"] ?? "", limits: .body(services.settings))
            params.form = parts.fields
            params.files = parts.files
        default:
            break
        }
    }

    /// The path and query of a request target in origin form (`/a?b`) or absolute form
    /// (`http://host/a?b`, which RFC 9112 says servers must accept).
    private static func originForm(_ uri: String) throws(HttpError) -> Substring {
        if uri.utf8.first == UInt8(ascii: "/") { return Substring(uri) }
        for scheme in ["http://", "https://"] where uri.lowercased().hasPrefix(scheme) {
            // By bytes, as the split at `?` in `init` is.
            let rest = Substring(uri.utf8.dropFirst(scheme.utf8.count))
            let slashOrQuestion = rest.utf8.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }
            guard let slash = slashOrQuestion else { return "/" }
            return rest.utf8[slash] == UInt8(ascii: "/") ? rest[slash...] : Substring("/" + rest[slash...])
        }
        if uri == "*" { return "*" }
        throw HttpError(.badRequest, "Malformed request target.")
    }
}
