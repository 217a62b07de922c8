import Foundation
import MicroAuth
import MicroCore
import NIOCore
import NIOHTTP1

/// Sends requests through the whole app in-process (static files, filters, routing, error
/// pages, sessions), without a socket, and keeps cookies between requests like a browser.
/// Micro's Rack::Test.
///
/// ```swift
/// let client = TestClient(app)
/// let page = try await client.get("/hello/Ann")
/// #expect(page.status == .ok)
/// #expect(page.text == "Hello, Ann!")
/// ```
public final class TestClient {
    private let app: App
    /// Whether 3xx answers with a `Location` are followed (up to 10 hops), as a browser does.
    public var followRedirects: Bool
    /// The cookies the client holds, by name.
    public private(set) var cookies: [String: StoredCookie] = [:]
    /// The address the app sees as the client's (`request.remoteAddress`).
    public var remoteAddress = "127.0.0.1"
    /// The app's port the request came to (`request.localPort`); nil, as without a socket.
    public var localPort: Int?
    /// Whether POST, PUT, PATCH and DELETE requests carry a valid CSRF token (in the
    /// `X-CSRF-Token` header), as a form in one of the app's pages would. Turn it off to test
    /// that a forged request is refused.
    public var sendsCsrfToken = true
    /// Header fields sent with every request unless the request gives its own
    /// (`["User-Agent": "..."]` for a browser of your choosing).
    public var defaultHeaders: HttpHeaders = [:]

    /// A cookie in the client's jar.
    public struct StoredCookie: Sendable, Equatable {
        /// The cookie's value.
        public var value: String
        /// The path it is sent for.
        public var path: String
        /// When it expires; nil for a session cookie.
        public var expires: Date?
        /// The attributes as the app set them (`HttpOnly`, `SameSite=Lax`, ...).
        public var attributes: [String]
    }

    /// A client for `app`; redirects are not followed unless asked.
    public init(_ app: App, followRedirects: Bool = false) {
        self.app = app
        self.followRedirects = followRedirects
    }

    /// Sends a GET request.
    public func get(_ uri: String, headers: HttpHeaders = [:]) async throws -> TestResponse {
        try await request(.GET, uri, headers: headers)
    }

    /// Sends a HEAD request.
    public func head(_ uri: String, headers: HttpHeaders = [:]) async throws -> TestResponse {
        try await request(.HEAD, uri, headers: headers)
    }

    /// Sends a DELETE request.
    public func delete(_ uri: String, headers: HttpHeaders = [:]) async throws -> TestResponse {
        try await request(.DELETE, uri, headers: headers)
    }

    /// Sends a POST with a form body (`application/x-www-form-urlencoded`).
    public func post(_ uri: String, form: KeyValuePairs<String, String>, headers: HttpHeaders = [:]) async throws -> TestResponse {
        try await request(.POST, uri, form: form, headers: headers)
    }

    /// Sends a POST with a JSON body (dates as ISO 8601 text, as Micro reads them).
    public func post(_ uri: String, json: some Encodable, headers: HttpHeaders = [:]) async throws -> TestResponse {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return try await request(.POST, uri, headers: headers, body: Array(encoder.encode(json)))
    }

    /// Sends a request with a form body (`application/x-www-form-urlencoded`).
    public func request(
        _ method: HttpMethod, _ uri: String, form: KeyValuePairs<String, String>, headers: HttpHeaders = [:]
    ) async throws -> TestResponse {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let body = form.map { Self.formEncode($0.key) + "=" + Self.formEncode($0.value) }.joined(separator: "&")
        return try await request(method, uri, headers: headers, body: Array(body.utf8))
    }

    /// Sends any request. Throws only when the app's definition is invalid (a bad route
    /// pattern); everything else comes back as a response, as a browser would see it.
    public func request(
        _ method: HttpMethod, _ uri: String, headers: HttpHeaders = [:], body: [UInt8] = []
    ) async throws -> TestResponse {
        var method = method
        var uri = uri
        var headers = headers
        var body = body
        for _ in 0...10 {
            let response = try await send(method, uri, headers: headers, body: body)
            guard followRedirects, (300...399).contains(response.status.code),
                let location = response.headers.first(name: "Location"), Self.isOnSite(location)
            else { return response }
            uri = Self.resolve(location, against: uri)
            if response.status.code != 307 && response.status.code != 308 {
                method = method == .HEAD ? .HEAD : .GET
                body = []
                headers.remove(name: "Content-Type")
            }
        }
        throw TestClientError("More than 10 redirects, the last to \(uri).")
    }

    private func send(_ method: HttpMethod, _ uri: String, headers: HttpHeaders, body: [UInt8]) async throws -> TestResponse {
        var headers = headers
        for (name, value) in defaultHeaders where !headers.contains(name: name) { headers.add(name: name, value: value) }
        if !headers.contains(name: "Host") { headers.add(name: "Host", value: "localhost") }
        let path = uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? "/"
        let jar = cookieHeader(for: path)
        if !jar.isEmpty, !headers.contains(name: "Cookie") { headers.add(name: "Cookie", value: jar) }
        if sendsCsrfToken, [.POST, .PUT, .PATCH, .DELETE].contains(method), !headers.contains(name: "X-CSRF-Token") {
            let issued = try app.issueCsrfToken(headers: headers)
            store(issued.response.headers["Set-Cookie"])
            headers.add(name: "X-CSRF-Token", value: issued.token)
            let jar = cookieHeader(for: path)
            if !jar.isEmpty { headers.replaceOrAdd(name: "Cookie", value: jar) }
        }
        if !body.isEmpty { headers.replaceOrAdd(name: "Content-Length", value: String(body.count)) }
        let response = try await app.respond(
            method: method, uri: uri, headers: headers, body: ByteBuffer(bytes: body), remoteAddress: remoteAddress, localPort: localPort)
        store(response.headers["Set-Cookie"])
        return TestResponse(status: response.status, headers: response.headers, body: try Self.bytes(of: response.body))
    }

    private func cookieHeader(for path: String) -> String {
        let now = Date()
        cookies = cookies.filter { $0.value.expires.map { $0 > now } ?? true }
        return cookies.filter { path.hasPrefix($0.value.path) }
            .sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value.value)" }
            .joined(separator: "; ")
    }

    private func store(_ setCookies: [String]) {
        for header in setCookies {
            let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<equals])
            var cookie = StoredCookie(value: String(pair[pair.index(after: equals)...]), path: "/", expires: nil, attributes: Array(parts.dropFirst()))
            for attribute in parts.dropFirst() {
                let lowered = attribute.lowercased()
                if lowered.hasPrefix("max-age="), let seconds = Int(attribute.dropFirst(8)) {
                    cookie.expires = Date(timeIntervalSinceNow: TimeInterval(seconds))
                } else if lowered.hasPrefix("expires="), cookie.expires == nil,
                    let date = Self.httpDateFormatter.date(from: String(attribute.dropFirst(8)))
                {
                    cookie.expires = date
                } else if lowered.hasPrefix("path=") {
                    cookie.path = String(attribute.dropFirst(5))
                }
            }
            if let expires = cookie.expires, expires <= Date() {
                cookies[name] = nil
            } else {
                cookies[name] = cookie
            }
        }
    }

    /// Sets a cookie in the jar, as if the app had set it.
    public func setCookie(_ name: String, _ value: String, path: String = "/") {
        cookies[name] = StoredCookie(value: value, path: path, expires: nil, attributes: [])
    }

    /// Forgets every cookie, as a browser restart would forget session cookies.
    public func clearCookies() {
        cookies.removeAll()
    }

    private static func bytes(of body: ResponseBody) throws -> [UInt8] {
        switch body {
        case .empty: return []
        case .bytes(let buffer): return Array(buffer.readableBytesView)
        case .file(let file):
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: file.path))
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(file.offset))
            return Array(try handle.read(upToCount: file.length) ?? Data())
        }
    }

    /// Whether a `Location` stays on the app: a path, or an absolute URL to localhost. A
    /// redirect elsewhere is returned, not followed, so a test sees an open redirect.
    private static func isOnSite(_ location: String) -> Bool {
        if location.hasPrefix("/") && !location.hasPrefix("//") && !location.hasPrefix("/\\") { return true }
        guard let url = URL(string: location), let host = url.host else { return !location.contains(":") }
        return ["localhost", "127.0.0.1"].contains(host.lowercased())
    }

    private static func resolve(_ location: String, against uri: String) -> String {
        if location.hasPrefix("/") && !location.hasPrefix("//") { return location }
        if let url = URL(string: location), url.scheme != nil || location.hasPrefix("//") {
            let query = url.query.map { "?" + $0 } ?? ""
            return (url.path.isEmpty ? "/" : url.path) + query
        }
        let base = uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? "/"
        let directory = base.hasSuffix("/") ? base : String(base[...(base.lastIndex(of: "/") ?? base.startIndex)])
        return directory + location
    }

    private static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        return (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text).replacingOccurrences(of: "%20", with: "+")
    }

    private static let httpDateFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter
    }()
}
