/// What a request can reach of the app beyond its routes: sessions, views, CSRF protection,
/// security headers. Built once when the app starts.
struct Services: Sendable {
    let sessions: Sessions
    let views: Views
    let csrf: CsrfProtection
    let securityHeaders: SecurityHeaders
    /// Values extensions add to every template (authentication adds the user).
    let templateHooks: [@Sendable (Request) -> [String: any Sendable]]
    /// Services plugins registered, by type.
    let extensions: [ObjectIdentifier: any Sendable]

    /// The service of type `T` a plugin registered.
    func `extension`<T: Sendable>(_ type: T.Type) -> T? {
        extensions[ObjectIdentifier(type)] as? T
    }

    func templateValues(_ request: Request) -> [String: Any] {
        var values: [String: Any] = [:]
        for hook in templateHooks {
            for (key, value) in hook(request) { values[key] = value }
        }
        return values
    }
}
