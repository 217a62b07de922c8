import MicroCore

extension Request {
    /// How this request was signed in: its session, HTTP Basic, a plugin's credential (an API
    /// token, with its id and scopes), or nobody.
    ///
    /// ```swift
    /// if request.authentication.kind == .session { ... }   // a person at a browser
    /// ```
    public var authentication: RequestAuthentication {
        if isAuthenticatedByHeader, credentialsUser != nil {
            if let given = storage[RequestAuthenticationKey.self] { return given }
            return isAuthenticatedByPassword ? .basic : RequestAuthentication(kind: .headerCredential)
        }
        return currentUser == nil ? .none : .session
    }

    /// Signs in `user` for this request only, by a header credential a plugin checked, which
    /// `authentication` describes (its kind, id and scopes): what ``credentialsUser`` does,
    /// and what ``authentication`` then tells the app.
    ///
    /// ```swift
    /// request.signIn(byCredential: user, as: RequestAuthentication(kind: .init("deploy-key"), credentialId: key.id, scopes: ["deploy"]))
    /// ```
    public func signIn(byCredential user: User, as authentication: RequestAuthentication) {
        credentialsUser = user
        storage[RequestAuthenticationKey.self] = authentication
    }

    /// ``authenticate()``, then a `403` page (or JSON error) unless the request may do what
    /// `scope` names (``RequestAuthentication/has(scope:)``): a session and HTTP Basic always
    /// may, a credential with scopes (an API token) only when it carries `scope`. Returns the
    /// user.
    ///
    /// ```swift
    /// app.post("/deploys") { request in
    ///     try request.requireScope("deploy")
    ///     ...
    /// }
    /// ```
    @discardableResult
    public func requireScope(_ scope: String) throws -> User {
        let user = try authenticate()
        guard authentication.has(scope: scope) else { throw missingScope(scope) }
        return user
    }

    /// The `403` of a credential without `scope`: what it lacks, in the message and, for a
    /// Bearer token, in `WWW-Authenticate` (RFC 6750's `insufficient_scope`).
    private func missingScope(_ scope: String) -> HttpError {
        // A name outside the rule is the app's own mistake, and is not repeated to the client.
        guard ScopeName.isValid(scope) else { return HttpError(.forbidden, "Your token lacks a scope this page needs.") }
        var challenge: HttpHeaders = [:]
        if let sent = headers.first(name: "Authorization"), sent.lowercased().hasPrefix("bearer ") {
            challenge.add(name: "WWW-Authenticate", value: "Bearer error=\"insufficient_scope\", scope=\"\(scope)\"")
        }
        return HttpError(.forbidden, "Your token lacks the scope '\(scope)', which this page needs: make a token that has it.", headers: challenge)
    }
}
