import MicroCore

/// What another plugin does when the sign-in flow reaches one of its moments (the account
/// pages record each in the user's activity). Added with ``MicroCore/App/addSignInListener(_:)``:
/// the flow announces the moment and does not know who listens. Each moment does nothing
/// unless the listener implements it.
public protocol SignInListener: Sendable {
    /// `user` was signed in to the request's session, by `detail` (`password`, `sso`, ...).
    func signedIn(_ request: Request, user: User, detail: String) async
    /// A wrong password, or a wrong answer to a further step, for `username`; nil for a name
    /// that names nobody.
    func signInFailed(_ request: Request, username: String?) async
    /// The throttle refused an attempt for `name` (nil: no name, or one outside the rules).
    func lockedOut(_ request: Request, name: String?, authentication: Authentication) async
    /// The request's session is about to be signed out.
    func signingOut(_ request: Request) async
    /// Every session of `username` (the key of their name) was ended
    /// (``MicroCore/Request/endSessions(of:everyWayIn:)``); with `everyWayIn`, the ways into the account
    /// the listener keeps end too.
    func sessionsEnded(_ request: Request, username: String, everyWayIn: Bool) async
}

extension SignInListener {
    /// Nothing.
    public func signedIn(_ request: Request, user: User, detail: String) async {}
    /// Nothing.
    public func signInFailed(_ request: Request, username: String?) async {}
    /// Nothing.
    public func lockedOut(_ request: Request, name: String?, authentication: Authentication) async {}
    /// Nothing.
    public func signingOut(_ request: Request) async {}
    /// Nothing.
    public func sessionsEnded(_ request: Request, username: String, everyWayIn: Bool) async {}
}
