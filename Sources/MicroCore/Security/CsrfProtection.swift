/// Refuses state-changing requests that did not come from the app's own pages.
///
/// POST, PUT, PATCH and DELETE need a valid token (the `_csrf` form field, or the
/// `X-CSRF-Token` header) unless their body is JSON, which browsers cannot send across sites
/// without the app's consent (CORS). Requests whose `Origin` names another site (neither the
/// request's host nor one of ``Settings/trustedOrigins``; an origin other than http or https
/// never matches, and `null` only with `Sec-Fetch-Site: same-origin`, as a page served with
/// `Referrer-Policy: no-referrer` posts), or whose `Sec-Fetch-Site` is `cross-site`, are
/// refused whatever they carry. A refusal is a 403: the session is never silently dropped instead.
///
/// Opt a path out (a webhook, an API authenticated otherwise) with ``App/skipCsrf(_:file:line:)``.
struct CsrfProtection: Sendable {
    let exemptions: [RoutePattern]
    /// ``Settings/trustedOrigins``, as ``origin(_:)`` writes them.
    let trustedOrigins: Set<String>

    init(exemptions: [RoutePattern], trustedOrigins: [String] = []) {
        self.exemptions = exemptions
        self.trustedOrigins = Set(trustedOrigins.compactMap(Self.origin))
    }

    func check(_ request: Request) throws(HttpError) {
        switch request.method {
        case .POST, .PUT, .PATCH, .DELETE: break
        default: return
        }
        if exemptions.contains(where: { $0.match(request.path) != nil }) { return }
        if request.headers.first(name: "Sec-Fetch-Site")?.lowercased() == "cross-site" {
            throw HttpError(.forbidden, "Cross-site request refused (Sec-Fetch-Site: cross-site).")
        }
        if let origin = request.headers.first(name: "Origin"), !isAllowed(origin, request), !isOwnPrivatePage(origin, request) {
            throw HttpError(.forbidden, "Cross-site request refused: the Origin \(origin) is not this site.")
        }
        if Self.isJson(request.headers.first(name: "Content-Type")) { return }
        // A script signed in by its own HTTP Basic credentials, with no session cookie: a browser
        // holding such credentials sends them across sites only with the Origin or
        // Sec-Fetch-Site the checks above refuse.
        if request.isAuthenticatedByHeader, request.cookie(request.services.sessions.settings.cookieName) == nil { return }
        let token = request.headers.first(name: CsrfToken.headerName) ?? request.params.form.last { $0.name == CsrfToken.fieldName }?.value
        guard let token, !token.isEmpty else {
            throw HttpError(.forbidden, "This form has expired or did not come from this site (missing CSRF token). Go back, reload the page and try again.")
        }
        guard CsrfToken.isValid(token, for: request.session) else {
            throw HttpError(.forbidden, "This form has expired or did not come from this site (invalid CSRF token). Go back, reload the page and try again.")
        }
    }

    /// Whether an `Origin: null` comes from a form of this site's own page served with
    /// `Referrer-Policy: no-referrer` (a set-up link's): browsers then hide the origin of its
    /// posts, while `Sec-Fetch-Site`, which no page can set, still says `same-origin`. The token
    /// is checked after, as for any form. A sandboxed frame's `null` is `cross-site`, and a
    /// client that sends no `Sec-Fetch-Site` is refused as before.
    private func isOwnPrivatePage(_ origin: String, _ request: Request) -> Bool {
        origin == "null" && request.headers.first(name: "Sec-Fetch-Site")?.lowercased() == "same-origin"
    }

    /// Whether `origin` (scheme://host[:port]) is the host the request was sent to (behind a
    /// trusted proxy, the forwarded one), in any scheme, or one of the trusted origins.
    func isAllowed(_ origin: String, _ request: Request) -> Bool {
        guard let origin = Self.origin(origin) else { return false }
        if trustedOrigins.contains(origin) { return true }
        guard let host = request.host, let schemeEnd = origin.range(of: "://") else { return false }
        return Self.origin(origin[..<schemeEnd.upperBound] + host) == origin
    }

    /// `text` as an origin in one spelling: lowercase, `http` or `https`, `://`, a host, and a
    /// port only when it is not the scheme's default (browsers leave that out). Nil for
    /// anything else: `null`, other schemes, a path, user, query, or a port out of range.
    static func origin(_ text: String) -> String? {
        // ASCII only, checked before lowercasing (which maps some non-ASCII letters to ASCII).
        guard !text.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else { return nil }
        let lowered = text.lowercased()
        guard let schemeEnd = lowered.range(of: "://") else { return nil }
        let scheme = lowered[..<schemeEnd.lowerBound]
        guard scheme == "http" || scheme == "https" else { return nil }
        var host = lowered[schemeEnd.upperBound...]
        guard !host.utf8.contains(where: { "/?#@\\".utf8.contains($0) }) else { return nil }
        var port: Substring?
        if host.first == "[" {
            // An IPv6 literal: `[::1]:8080`.
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            if !rest.isEmpty {
                guard rest.first == ":" else { return nil }
                port = rest.dropFirst()
            }
            host = host[...close]
        } else if let colon = host.firstIndex(of: ":") {
            port = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        guard !host.isEmpty, host != "[]" else { return nil }
        guard let port else { return "\(scheme)://\(host)" }
        guard (1...5).contains(port.count), port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port),
            (1...65535).contains(number)
        else { return nil }
        let isDefault = (scheme == "http" && number == 80) || (scheme == "https" && number == 443)
        return isDefault ? "\(scheme)://\(host)" : "\(scheme)://\(host):\(number)"
    }

    static func isJson(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";").first?.trimmingSpaces().lowercased() else { return false }
        return type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json"))
    }
}
