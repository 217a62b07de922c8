/// Headers that tell browsers to protect the app's pages: no MIME sniffing, no framing,
/// a strict referrer policy and a Content-Security-Policy allowing the app's own resources
/// only. Each can be changed or turned off (set it to nil).
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
    /// `Cache-Control` for pages answered to a signed-in session, so a shared computer's
    /// back button shows nothing after sign-out.
    public var signedInCacheControl: String? = "no-store"

    /// The defaults.
    public init() {}

    /// Adds the headers the response does not set itself; `signedIn` (asked only for HTML
    /// pages) says whether the page was answered to a signed-in session.
    func apply(to response: inout Response, signedIn: () -> Bool) {
        func add(_ name: String, _ value: String?) {
            if let value, !response.headers.contains(name: name) { response.headers.add(name: name, value: value) }
        }
        add("X-Content-Type-Options", contentTypeOptions)
        guard response.isHtml else { return }
        add("X-Frame-Options", frameOptions)
        add("Referrer-Policy", referrerPolicy)
        add("Content-Security-Policy", contentSecurityPolicy)
        if let signedInCacheControl, signedIn() { response.headers.replaceOrAdd(name: "Cache-Control", value: signedInCacheControl) }
    }
}
