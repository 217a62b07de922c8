extension Request {
    /// The scheme the client used: `X-Forwarded-Proto` from a trusted proxy (`http` or
    /// `https`), else `https` when the app serves TLS itself (``Settings/tls``), else `http`.
    public var scheme: String {
        services.proxies.forwardedProto(peer: remoteAddress, headers: headers) ?? (services.settings.tls == nil ? "http" : "https")
    }

    /// The absolute URL of `path`, one of the app's own paths (`/auth/callback`), as the
    /// outside world reaches it: ``Settings/publicUrl`` with the base path, else the request's
    /// own scheme and host (allowed by ``Settings/allowedHosts``, or the request would not
    /// have got here). For links that leave the browser: a provider's redirect URI, a mail.
    ///
    /// ```swift
    /// let callback = request.absoluteUrl("/auth/oidc/callback")   // https://tools.example.com/auth/oidc/callback
    /// ```
    public func absoluteUrl(_ path: String) -> String {
        if let publicUrl = services.publicUrl { return publicUrl.origin + url(path) }
        return scheme + "://" + (host ?? "localhost") + url(path)
    }
}
