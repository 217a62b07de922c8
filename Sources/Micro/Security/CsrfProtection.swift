/// Refuses state-changing requests that did not come from the app's own pages.
///
/// POST, PUT, PATCH and DELETE need a valid token (the `_csrf` form field, or the
/// `X-CSRF-Token` header) unless their body is JSON, which browsers cannot send across sites
/// without the app's consent (CORS). Requests whose `Origin` names another site (neither the
/// request's host nor one of ``Settings/trustedOrigins``), or whose `Sec-Fetch-Site` is
/// `cross-site`, are refused whatever they carry. A refusal is a 403: the
/// session is never silently dropped instead.
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
        if let origin = request.headers.first(name: "Origin"), !isAllowed(origin, request) {
            throw HttpError(.forbidden, "Cross-site request refused: the Origin \(origin) is not this site.")
        }
        if Self.isJson(request.headers.first(name: "Content-Type")) { return }
        let token = request.headers.first(name: CsrfToken.headerName) ?? request.params.form.last { $0.name == CsrfToken.fieldName }?.value
        guard let token, !token.isEmpty else {
            throw HttpError(.forbidden, "This form has expired or did not come from this site (missing CSRF token). Go back, reload the page and try again.")
        }
        guard CsrfToken.isValid(token, for: request.session) else {
            throw HttpError(.forbidden, "This form has expired or did not come from this site (invalid CSRF token). Go back, reload the page and try again.")
        }
    }

    /// Whether `origin` (scheme://host[:port]) is the host the request was sent to (behind a
    /// trusted proxy, the forwarded one) or one of the trusted origins.
    func isAllowed(_ origin: String, _ request: Request) -> Bool {
        guard let origin = Self.origin(origin) else { return false }
        if trustedOrigins.contains(origin) { return true }
        guard let host = request.host?.lowercased(), let schemeEnd = origin.range(of: "://") else { return false }
        return origin[schemeEnd.upperBound...] == host
    }

    /// `text` as an origin, lowercased: `http` or `https`, `://`, and a host with an optional
    /// port, nothing more (no path, user or query); nil for anything else, `null` included.
    static func origin(_ text: String) -> String? {
        let origin = text.lowercased()
        guard let schemeEnd = origin.range(of: "://"), ["http", "https"].contains(origin[..<schemeEnd.lowerBound]) else { return nil }
        let host = origin[schemeEnd.upperBound...]
        guard !host.isEmpty, !host.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F || "/?#@\\".utf8.contains($0) }) else { return nil }
        return origin
    }

    static func isJson(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";").first?.trimmingSpaces().lowercased() else { return false }
        return type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json"))
    }
}
