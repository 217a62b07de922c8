import Foundation
import Metrics

/// The app's settings, with Sinatra's defaults and secure limits.
///
/// ```swift
/// let app = App()
/// app.settings.port = 8080
/// app.settings.bodyLimit = 10 << 20
/// ```
public struct Settings: Sendable {
    /// development, production or test (from `MICRO_ENV`).
    public var environment: Environment = .development
    /// The folder of templates; nil for an app without any (the built-in sign-in pages still
    /// work). A folder that does not exist stops start-up.
    public var views: String? = "views"
    /// The folder whose files are served as they are; nil serves none.
    public var publicFolder: String? = "public"
    /// `Cache-Control` of static files. `no-cache` makes browsers revalidate with the ETag,
    /// so a changed stylesheet shows at once and an unchanged one costs a 304.
    public var staticCacheControl = "no-cache"
    /// The address to listen on (`HOST` overrides it).
    public var host = "127.0.0.1"
    /// The port to listen on (`PORT` overrides it); 0 picks a free one.
    public var port = 4567
    /// The largest request body accepted; a larger one gets 413. A chunked body's framing on
    /// the wire (chunk sizes and extensions) counts toward it too, with an allowance of an
    /// eighth of it (at least 64 KiB) for honest framing; one chunk line or trailer section
    /// longer than ``headerLimit`` gets 400.
    public var bodyLimit = 1 << 20
    /// The most fields a form may have (`application/x-www-form-urlencoded`, or
    /// `multipart/form-data` parts, files included), and the most parameters in a query string;
    /// more gets 413 (414 for a query string). Decoding stops at the first field over it. As
    /// Flask's `MAX_FORM_PARTS`.
    public var formFieldLimit = 1000
    /// The most bytes a form's fields may take once decoded, their names and values together
    /// (`multipart/form-data` text fields too; uploaded files are apart, within ``bodyLimit``);
    /// more gets 413. Decoding stops as soon as it is passed. As Flask's `MAX_FORM_MEMORY_SIZE`.
    public var formMemoryLimit = 500_000
    /// The most bytes of request line and header fields accepted; more gets 431.
    public var headerLimit = 16 << 10
    /// The time from a request's first byte to its complete head before the connection is cut.
    public var headerTimeout: Duration = .seconds(10)
    /// The time from a request's head to the end of its body before the connection is cut.
    public var bodyTimeout: Duration = .seconds(30)
    /// How long an idle keep-alive connection is kept open. (How long a session lasts without a
    /// request is another setting: `sessions.idleTimeout`.)
    public var connectionIdleTimeout: Duration = .seconds(15)
    /// How long a client may go without reading any of the answers being sent to it before the
    /// connection is cut (nginx's `send_timeout`); more requests from it do not buy more time.
    /// A download is never cut for its length, only for stalling: a slow client that keeps
    /// reading gets the whole file. (The time runs while the answer is with Micro; its last few
    /// MiB sit in the kernel's buffers, and from there the idle timeout applies.)
    public var sendTimeout: Duration = .seconds(30)
    /// How long a shutdown waits for requests in flight before closing their connections.
    public var shutdownTimeout: Duration = .seconds(10)
    /// The most connections served at once (`MICRO_MAX_CONNECTIONS` overrides it); one more is
    /// answered `503 Service Unavailable` and closed. The default is what the open-files limit
    /// (`ulimit -n`) carries with room to spare: half of it, since a connection sending a file
    /// holds two descriptors, less a reserve, and at most 10 000.
    public var maxConnections = Settings.defaultMaxConnections
    /// Whether each request is logged (method, path, status, bytes, duration).
    public var accessLog = true
    /// How the app's own logger writes: swift-log's text lines, the default, or one JSON
    /// object per line (``JsonLogHandler``). `MICRO_LOG_FORMAT` sets it (`text` or `json`).
    /// Read when the app is made, which makes its logger: set it in the settings given to
    /// ``App/init(settings:logger:)``; changed afterwards, or beside a logger given there
    /// (which keeps its own handler), it stops start-up with a message saying so.
    public var logFormat = LogFormat.text
    /// Whether the access log shows query strings too. Off by default: a form sent by GET
    /// carries what was typed into it (a tool's input can be a secret) in its query string.
    public var accessLogQueries = false
    /// Where the app's metrics go; nil, the default, sends them to the backend that
    /// `MetricsSystem.bootstrap` installed (read when the app starts: bootstrap first). With no
    /// backend, or with `NOOPMetricsHandler.instance` here, nothing is recorded and requests
    /// pay nothing for them.
    ///
    /// - `micro_requests_total` (counter; `method`, `route`, `status`): the route is the
    ///   pattern as written (`/notes/:id`), `static` for a file from the public folder, and
    ///   `unmatched` when no route answered (none matched, or a filter stopped the request
    ///   first): never the path, so a scan of random paths makes no new series. What the
    ///   server refuses before the app sees it (a 431 or a 408, say) is not counted.
    /// - `micro_request_duration_seconds` (timer; `method`, `route`): from the request to its
    ///   response (the body may still be on its way to the client).
    ///
    /// Plugins add theirs through ``App/addMetrics(_:)`` (authentication: sign-ins by outcome
    /// and throttled attempts); the article "Metrics" lists them all.
    public var metricsFactory: (any MetricsFactory)?
    /// The reverse proxies in front of the app, by address or CIDR range (`"127.0.0.1"`,
    /// `"10.0.0.5"`, `"fd00::/64"`). A request that comes through one is taken to be from the
    /// client its `X-Forwarded-For` names (``Request/clientAddress``, which the sign-in
    /// throttle counts) and for the site its `X-Forwarded-Host` names (which the CSRF `Origin`
    /// check compares). Empty by default: anyone can send those headers, so none is believed.
    /// `MICRO_TRUSTED_PROXIES` sets it (comma-separated).
    ///
    /// The proxies must append to `X-Forwarded-For` and set `X-Forwarded-Host` themselves
    /// (nginx: `proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;` and
    /// `proxy_set_header X-Forwarded-Host $http_host;`); one that passes the client's headers
    /// on untouched lets the client choose both. Name only the proxies: a range that holds
    /// clients too lets those clients choose their address.
    public var trustedProxies: [String] = []
    /// The path the app is mounted under behind a proxy that passes the whole path on
    /// (`/tools`: the app's `/signin` is then `/tools/signin`); empty for none (`MICRO_BASE_PATH`
    /// sets it). Requests outside it get a 404. Redirects, the return path after sign-in and
    /// ``Request/url(_:)`` add it; templates see it as `{{basePath}}`. A trusted proxy that
    /// strips the prefix itself says it with `X-Forwarded-Prefix` instead, which is believed
    /// only when it is one of ``forwardedPrefixes``. A path in ``publicUrl`` sets it too.
    public var basePath = ""
    /// The values of `X-Forwarded-Prefix` believed from a trusted proxy (`/tools`); any other
    /// value is ignored. Empty by default: nginx passes a client's own `X-Forwarded-Prefix` on
    /// unless told otherwise, so a listed value is the only proof that the proxy set it.
    /// `MICRO_FORWARDED_PREFIXES` sets it (comma-separated).
    public var forwardedPrefixes: [String] = []
    /// The host names the app answers for besides IP literals, `localhost` and the host of
    /// ``publicUrl`` (`tools.example.com`; a leading dot allows a domain and its subdomains:
    /// `.example.com`); a request naming another host in `Host` (or, from a trusted proxy, in
    /// `X-Forwarded-Host`) gets `421 Misdirected Request` before anything reads it. This is
    /// what stops DNS rebinding. `MICRO_ALLOWED_HOSTS` sets it (comma-separated). The port is
    /// not compared.
    public var allowedHosts: [String] = []
    /// The app's external address (`https://tools.example.com`, or with the path it is mounted
    /// under: `https://example.com/tools`); `MICRO_PUBLIC_URL` sets it. Its host is allowed,
    /// its origin trusted by the CSRF check, its path the ``basePath``; absolute URLs the app
    /// builds start with it (``Request/absoluteUrl(_:)``); `https` there makes the session
    /// cookie `Secure` in any environment.
    public var publicUrl: String?
    /// The app's public origins (`"https://tools.example.com"`), for a proxy that passes on
    /// neither the `Host` the browser used nor `X-Forwarded-Host`: a state-changing request
    /// whose `Origin` is neither the request's host nor one of these gets a 403. Only the app's
    /// own site belongs here: a form on another site is refused anyway (its `Sec-Fetch-Site`
    /// is `cross-site`, and the `SameSite=Lax` session cookie does not come with it).
    public var trustedOrigins: [String] = []
    /// HTTPS served by the app itself (``TlsSettings``: certificate and key files, an optional
    /// port redirecting plain HTTP); nil, the default, serves plain HTTP, as behind a proxy
    /// that does TLS. `MICRO_TLS_CERT`, `MICRO_TLS_KEY` and `MICRO_HTTP_REDIRECT_PORT` set it.
    public var tls: TlsSettings?
    /// Sessions: cookie, secret (`MICRO_SESSION_SECRET`), timeouts, store.
    public var sessions = SessionSettings()
    /// The process's `MICRO_` environment variables these settings were read from
    /// (``fromProcess(_:)``): plugins read their own there when the app starts
    /// (`MICRO_DATA_KEY`, `MICRO_ALLOW_DEMO_USERS`), so that an app given settings in code
    /// (``App/init(settings:logger:)``) reads none. Empty for settings made in code.
    public var variables: [String: String] = [:]
    /// The headers that protect HTML pages (CSP, frame and sniffing protection).
    public var securityHeaders = SecurityHeaders()
    /// The clock sessions and throttles read; tests replace it to travel in time.
    public var clock: @Sendable () -> Date = { Date() }

    /// The defaults.
    public init() {}

    /// The settings as the app serves with them: the public URL's path as the base path.
    func resolved() -> Settings {
        var settings = self
        if settings.basePath.isEmpty, let url = try? settings.publicUrl.map(PublicUrl.init), !url.path.isEmpty {
            settings.basePath = url.path
        }
        return settings
    }

    /// The public URL, parsed; nil when there is none (or it is malformed, which
    /// ``problems()`` reports).
    var parsedPublicUrl: PublicUrl? {
        publicUrl.flatMap { try? PublicUrl($0) }
    }

    /// Descriptors kept free of connections: the listening socket, logs, templates, the users file.
    static let reservedFiles = 64

    /// The soft limit on open files (`ulimit -n`), or nil when there is none.
    static var openFilesLimit: Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// The default of ``maxConnections`` for this process's open-files limit.
    static var defaultMaxConnections: Int {
        guard let files = openFilesLimit else { return 10_000 }
        return min(10_000, max(1, (files - reservedFiles) / 2))
    }
}
