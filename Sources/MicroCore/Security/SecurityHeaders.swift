/// Headers that tell browsers to protect the app's pages: no MIME sniffing, no framing,
/// a strict referrer policy and a Content-Security-Policy allowing the app's own resources
/// only. Each can be changed or turned off (set it to nil).
///
/// And `Cache-Control`, so that no cache keeps what belongs to one session. For each response
/// a route, a filter or an error page made (static files keep their own `Cache-Control`,
/// ``Settings/staticCacheControl``, with their `ETag` and `Last-Modified`), the first rule
/// that applies decides:
///
/// 1. It sets a cookie (the session's, or one of the route's): `no-store`, in place of the
///    route's own. A cache that kept it would hand the cookie to the next client. Not a setting.
/// 2. It goes to a signed-in session: ``signedInCacheControl`` (`no-store`), in place of the
///    route's own.
/// 3. The route set `Cache-Control` itself: that (`public, max-age=60` on a page that is the
///    same for everyone, say).
/// 4. Otherwise ``defaultCacheControl`` (`private, max-age=0, must-revalidate`, Rails' default).
///
/// And every response for which the session was loaded (the route or a template read it, which
/// every rendered page does for the flash and the CSRF token, or the client sent a session
/// cookie) gets `Vary: Cookie`, so that a cache a route allowed keeps one copy per session.
///
/// ```swift
/// app.settings.securityHeaders.contentSecurityPolicy = "default-src 'self'; img-src *"
/// ```
public struct SecurityHeaders: Sendable {
    /// `X-Content-Type-Options`, on every response.
    public var contentTypeOptions: String? = "nosniff"
    /// `X-Frame-Options`, on HTML responses.
    public var frameOptions: String? = "DENY"
    /// `Referrer-Policy`, on HTML responses.
    public var referrerPolicy: String? = "same-origin"
    /// `Content-Security-Policy`, on HTML responses.
    public var contentSecurityPolicy: String? =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
        + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'self'; object-src 'none'"
    /// `Cache-Control` of every dynamic response to a signed-in session (pages, JSON, redirects,
    /// error pages), in place of the route's own: a shared computer's back button shows nothing
    /// after sign-out, and no cache keeps one user's data (rule 2 above).
    public var signedInCacheControl: String? = "no-store"
    /// `Cache-Control` of a dynamic response that sets none itself, sets no cookie and goes to
    /// no signed-in session (rule 4 above): no shared cache (a proxy, a CDN) keeps it, and a
    /// browser that keeps it must ask again before showing it (`max-age=0` rather than
    /// `no-cache`, which without an `ETag` would ask for what it cannot do; and no freshness
    /// left for a cache to guess). A route that may be cached sets its own.
    public var defaultCacheControl: String? = "private, max-age=0, must-revalidate"

    /// The defaults.
    public init() {}

    /// Adds the headers the response does not set itself (`Cache-Control` aside: see
    /// `applyCaching`).
    func apply(to response: inout Response) {
        func add(_ name: String, _ value: String?) {
            if let value, !response.headers.contains(name: name) { response.headers.add(name: name, value: value) }
        }
        add("X-Content-Type-Options", contentTypeOptions)
        guard response.isHtml else { return }
        add("X-Frame-Options", frameOptions)
        add("Referrer-Policy", referrerPolicy)
        add("Content-Security-Policy", contentSecurityPolicy)
    }
}
