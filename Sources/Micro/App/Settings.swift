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
    /// - `micro_sign_ins_total` (counter; `via`: `form` or `basic`, `outcome`: `success`,
    ///   `failure`, `throttled` or `unavailable`): each check of a password; a script's HTTP
    ///   Basic credentials found in the cache are not checked again and not counted.
    /// - `micro_throttled_total` (counter; `action`: `refused` with a 429, or `delayed` behind
    ///   checks in flight for the same name or address).
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
    /// Whether production may start with a user whose password is a published demo one
    /// (``Authentication/demoPasswords``): `MICRO_ALLOW_DEMO_USERS=1`, for a deliberate demo.
    public var allowsDemoUsers = false
    /// The app's public origins (`"https://tools.example.com"`), for a proxy that passes on
    /// neither the `Host` the browser used nor `X-Forwarded-Host`: a state-changing request
    /// whose `Origin` is neither the request's host nor one of these gets a 403. Only the app's
    /// own site belongs here: a form on another site is refused anyway (its `Sec-Fetch-Site`
    /// is `cross-site`, and the `SameSite=Lax` session cookie does not come with it).
    public var trustedOrigins: [String] = []
    /// Sessions: cookie, secret (`MICRO_SESSION_SECRET`), timeouts, store.
    public var sessions = SessionSettings()
    /// The headers that protect HTML pages (CSP, frame and sniffing protection).
    public var securityHeaders = SecurityHeaders()
    /// The clock sessions and throttles read; tests replace it to travel in time.
    public var clock: @Sendable () -> Date = { Date() }

    /// The defaults.
    public init() {}

    /// The mistakes in these settings, each in words that say what to change.
    func problems() -> [String] {
        var problems: [String] = []
        for (name, value) in [
            ("headerTimeout", headerTimeout), ("bodyTimeout", bodyTimeout), ("connectionIdleTimeout", connectionIdleTimeout),
            ("sendTimeout", sendTimeout), ("shutdownTimeout", shutdownTimeout),
        ]
        where !(value > .zero && value <= .seconds(86_400)) {
            problems.append("settings.\(name) is \(value); it must be more than 0 and at most 24 hours.")
        }
        if maxConnections < 1 {
            problems.append("settings.maxConnections is \(maxConnections); it must be at least 1.")
        } else if let files = Self.openFilesLimit, maxConnections > max(1, files - Self.reservedFiles) {
            problems.append(
                "settings.maxConnections is \(maxConnections), but this process may open only \(files) files (ulimit -n) and each connection takes one: raise the limit (ulimit -n, or LimitNOFILE= in a systemd unit) or lower maxConnections (MICRO_MAX_CONNECTIONS) to \(max(1, (files - Self.reservedFiles) / 2)) or less.")
        }
        if let views, !Self.isDirectory(views) {
            problems.append("settings.views: the views folder '\(views)' does not exist (relative paths start at \(FileManager.default.currentDirectoryPath)); create it, or set settings.views = nil for an app without templates.")
        }
        if bodyLimit <= 0 { problems.append("settings.bodyLimit is \(bodyLimit); it must be positive.") }
        if formFieldLimit < 1 { problems.append("settings.formFieldLimit is \(formFieldLimit); it must be at least 1.") }
        if formMemoryLimit < 1 { problems.append("settings.formMemoryLimit is \(formMemoryLimit); it must be positive.") }
        if headerLimit < 1024 { problems.append("settings.headerLimit is \(headerLimit); it must be at least 1024 bytes.") }
        let token = sessions.cookieName.utf8
        if token.isEmpty || token.contains(where: { $0 <= 0x20 || $0 >= 0x7F || Array("()<>@,;:\\\"/[]?={}".utf8).contains($0) }) {
            problems.append("settings.sessions.cookieName '\(sessions.cookieName)' is not a valid cookie name.")
        }
        if sessions.idleSeconds <= 0 || sessions.lifetimeSeconds <= 0 {
            problems.append("settings.sessions.idleTimeout and absoluteLifetime must be a second or more.")
        }
        if !basePath.isEmpty, let problem = Self.basePathProblem(basePath) {
            problems.append("settings.basePath: \(problem)")
        }
        for entry in trustedProxies where AddressRange(entry) == nil {
            problems.append("settings.trustedProxies has '\(entry)', which is not an IP address or a range such as 10.0.0.0/8.")
        }
        for entry in forwardedPrefixes where PathScope.problem(with: entry) != nil {
            problems.append("settings.forwardedPrefixes has '\(entry)'; a prefix starts with a slash and holds only literal segments: /tools, say.")
        }
        for entry in allowedHosts where Self.hostProblem(entry) != nil {
            problems.append("settings.allowedHosts has '\(entry)'; \(Self.hostProblem(entry)!)")
        }
        if let publicUrl {
            do {
                let url = try PublicUrl(publicUrl)
                if !url.path.isEmpty, !basePath.isEmpty, url.path != basePath {
                    problems.append("settings.publicUrl's path \(url.path) differs from settings.basePath \(basePath); give one of them.")
                }
            } catch {
                problems.append("settings.publicUrl: \(error.message)")
            }
        }
        for entry in trustedOrigins where CsrfProtection.origin(entry) == nil {
            problems.append("settings.trustedOrigins has '\(entry)'; an origin is http:// or https://, a host and an optional port from 1 to 65535, nothing more: https://tools.example.com, say.")
        }
        for (name, value) in [("staticCacheControl", staticCacheControl)] where value.utf8.contains(where: { $0 < 0x20 }) {
            problems.append("settings.\(name) holds a control character.")
        }
        return problems
    }

    /// What is wrong with `path` as a base path (it is checked as a group's prefix is).
    static func basePathProblem(_ path: String) -> String? {
        PathScope.problem(with: path).map { $0.replacingOccurrences(of: "a group's prefix", with: "the base path") }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Why `entry` cannot be an allowed host; nil when it can: a name of letters, digits, `-`
    /// and dots, with an optional leading dot, and no port.
    static func hostProblem(_ entry: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.".utf8)
        let name = entry.hasPrefix(".") ? entry.dropFirst() : Substring(entry)
        guard !name.isEmpty, name.utf8.allSatisfy(allowed.contains), !name.hasPrefix("."), !name.contains("..") else {
            return "expected a host name such as tools.example.com, or .example.com for a domain and its subdomains (no scheme, port or path)."
        }
        return nil
    }

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

    /// The defaults, with `MICRO_ENV`, `HOST`, `PORT`, `MICRO_BASE_PATH`,
    /// `MICRO_MAX_CONNECTIONS`, `MICRO_TRUSTED_PROXIES`, `MICRO_FORWARDED_PREFIXES`,
    /// `MICRO_ALLOWED_HOSTS` (comma-separated), `MICRO_PUBLIC_URL`, `MICRO_ALLOW_DEMO_USERS`
    /// and `MICRO_SESSION_SECRET` applied. A bad value throws an error naming its variable.
    public static func fromProcess(_ variables: [String: String]) throws(ConfigurationError) -> Settings {
        var settings = Settings()
        settings.environment = try Environment.fromProcess(variables)
        if let host = variables["HOST"], !host.isEmpty { settings.host = host }
        if let basePath = variables["MICRO_BASE_PATH"], !basePath.isEmpty {
            if let problem = basePathProblem(basePath) { throw ConfigurationError("MICRO_BASE_PATH: \(problem)") }
            settings.basePath = basePath
        }
        if let raw = variables["PORT"], !raw.isEmpty {
            guard let port = Int(raw), (0...65535).contains(port) else {
                throw ConfigurationError("PORT is '\(raw)'; expected a number from 0 to 65535.")
            }
            settings.port = port
        }
        if let raw = variables["MICRO_MAX_CONNECTIONS"], !raw.isEmpty {
            guard let limit = Int(raw), limit >= 1 else {
                throw ConfigurationError("MICRO_MAX_CONNECTIONS is '\(raw)'; expected a whole number of 1 or more.")
            }
            settings.maxConnections = limit
        }
        if let raw = variables["MICRO_TRUSTED_PROXIES"], !raw.isEmpty {
            let entries = Self.list(raw)
            if let bad = entries.first(where: { AddressRange($0) == nil }) {
                throw ConfigurationError("MICRO_TRUSTED_PROXIES has '\(bad)'; expected IP addresses or ranges separated by commas, such as 127.0.0.1,10.0.0.0/8.")
            }
            settings.trustedProxies = entries
        }
        if let raw = variables["MICRO_FORWARDED_PREFIXES"], !raw.isEmpty {
            let entries = Self.list(raw)
            if let bad = entries.first(where: { PathScope.problem(with: $0) != nil }) {
                throw ConfigurationError("MICRO_FORWARDED_PREFIXES has '\(bad)'; expected paths separated by commas, such as /tools,/admin-tools.")
            }
            settings.forwardedPrefixes = entries
        }
        if let raw = variables["MICRO_ALLOWED_HOSTS"], !raw.isEmpty {
            let entries = Self.list(raw)
            if let bad = entries.first(where: { hostProblem($0) != nil }) {
                throw ConfigurationError("MICRO_ALLOWED_HOSTS has '\(bad)'; \(hostProblem(bad)!)")
            }
            settings.allowedHosts = entries
        }
        if let raw = variables["MICRO_PUBLIC_URL"], !raw.isEmpty {
            let url: PublicUrl
            do { url = try PublicUrl(raw) } catch { throw ConfigurationError("MICRO_PUBLIC_URL: \(error.message)") }
            if !url.path.isEmpty, !settings.basePath.isEmpty, url.path != settings.basePath {
                throw ConfigurationError("MICRO_PUBLIC_URL's path \(url.path) differs from MICRO_BASE_PATH \(settings.basePath); give one of them.")
            }
            settings.publicUrl = raw
        }
        if let raw = variables["MICRO_ALLOW_DEMO_USERS"], !raw.isEmpty {
            guard raw == "1" || raw == "0" else {
                throw ConfigurationError("MICRO_ALLOW_DEMO_USERS is '\(raw)'; expected 1 (allow a published demo password in production) or 0.")
            }
            settings.allowsDemoUsers = raw == "1"
        }
        if let secret = variables["MICRO_SESSION_SECRET"], !secret.isEmpty { settings.sessions.secret = secret }
        return settings
    }

    /// The entries of a comma-separated variable, trimmed, without empty ones.
    private static func list(_ raw: String) -> [String] {
        raw.split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
    }
}
