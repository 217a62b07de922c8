import MicroCore

extension Request {
    /// Ends every session of `username` begun until now, wherever its cookie is: on every
    /// instance that shares the app's revocations, and after a restart where they are kept in
    /// a database. The one way to end a user's sessions: an admin's action, a user's "sign out
    /// everywhere", a provider telling the app that a person left.
    ///
    /// The plugins that listen to the sign-in flow hear of it (each ``SignInListener``): the account
    /// pages take the sessions off the sessions page. With `everyWayIn`, they also end the
    /// other ways into the account they keep (API tokens, passkeys), as an admin answering an
    /// incident wants. When `username` is the request's own user, this session ends too: sign
    /// it out (``signOut()``).
    ///
    /// ```swift
    /// app.post("/account/sign-out-everywhere") { request in
    ///     let user = try request.authenticate()
    ///     await request.endSessions(of: user.username)
    ///     request.signOut()
    ///     try request.redirect(to: "/")
    /// }
    /// ```
    public func endSessions(of username: String, everyWayIn: Bool = false) async {
        let name = Username.key(username)
        services.sessions.revokeSessions(of: name, at: session.nowMilliseconds)
        await announce { await $0.sessionsEnded(self, username: name, everyWayIn: everyWayIn) }
    }
}
