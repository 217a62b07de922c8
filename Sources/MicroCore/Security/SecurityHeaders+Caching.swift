extension SecurityHeaders {
    /// Sets `Cache-Control` (and `Vary: Cookie`) on a dynamic response by the rules in the
    /// type's documentation. `sessionLoaded` says whether the request's session was loaded;
    /// `signedIn` is asked only then.
    /// `byCredentials`: the request was signed in by its own `Authorization` header (a script's
    /// HTTP Basic), so the answer is a signed-in user's and varies by that header.
    func applyCaching(to response: inout Response, sessionLoaded: Bool, byCredentials: Bool = false, signedIn: () -> Bool) {
        if response.headers.contains(name: "Set-Cookie") {
            response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        } else if byCredentials {
            response.headers.replaceOrAdd(name: "Cache-Control", value: signedInCacheControl ?? "no-store")
        } else if sessionLoaded, let signedInCacheControl, signedIn() {
            response.headers.replaceOrAdd(name: "Cache-Control", value: signedInCacheControl)
        } else if let defaultCacheControl, !response.headers.contains(name: "Cache-Control") {
            response.headers.add(name: "Cache-Control", value: defaultCacheControl)
        }
        if sessionLoaded, !Self.varies(response.headers[canonicalForm: "Vary"]) {
            response.headers.add(name: "Vary", value: "Cookie")
        }
        if byCredentials { response.headers.add(name: "Vary", value: "Authorization") }
    }

    /// Whether a `Vary` list already names `Cookie` (any case) or `*`.
    private static func varies(_ values: [Substring]) -> Bool {
        values.contains { value in
            let name = value.trimmingSpaces().lowercased()
            return name == "*" || name == "cookie"
        }
    }
}
