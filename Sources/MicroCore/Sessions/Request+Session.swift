extension Request {
    /// The client's session (see ``Session``), loaded from its cookie the first time it is asked
    /// for; a new, empty one when the cookie is missing, forged, garbled or expired.
    public var session: Session {
        if let session = loadedSession { return session }
        let session = services.sessions.load(for: self)
        loadedSession = session
        return session
    }

    /// Messages for the next request (see ``Flash``): `request.flash["notice"] = "Saved."`.
    ///
    /// The previous request's messages leave the session the first time the flash is asked
    /// for (by the route, or by ``render(_:_:layout:)``), not when the session loads: a request
    /// that only reads the session (a sign-in check before a redirect, a JSON call, a CSRF
    /// check) leaves them for the page that shows them.
    public var flash: Flash {
        if let flash = loadedFlash { return flash }
        let flash = Flash(session: session)
        loadedFlash = flash
        return flash
    }

    /// A CSRF token for a form of this session: send it as the `_csrf` field (templates have
    /// `{{{csrfField}}}`) or the `X-CSRF-Token` header.
    public var csrfToken: String {
        CsrfToken.token(for: session)
    }
}

extension Request {
    /// Whether the page goes to a signed-in session (it then gets `Cache-Control: no-store`):
    /// one holding a value ``App/addSignedInSessionKey(_:)`` named. Reads the session only when
    /// the client sent a session cookie.
    var isSignedInForHeaders: Bool {
        let keys = services.signedInSessionKeys
        if keys.isEmpty { return false }
        if loadedSession == nil, cookie(services.sessions.settings.cookieName) == nil { return false }
        let session = session
        return keys.contains { session.contains($0) }
    }
}
