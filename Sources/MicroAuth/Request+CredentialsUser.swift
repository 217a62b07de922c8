import MicroCore

extension Request {
    /// The user a script's header credentials (HTTP Basic, an API token) named, for this
    /// request only. Setting it marks the request as authenticated by its header fields, which
    /// is what the core's caching and CSRF checks know of it: a plugin that checks a credential
    /// of its own (an API token) sets it, from a credential check
    /// (``/MicroCore/App/addCredentialCheck(_:file:line:_:)``), once the credential is proven.
    /// Such a credential proves no password: what asks for the user's password again (the
    /// users page's changes) refuses it, and takes only ``isAuthenticatedByPassword``.
    public var credentialsUser: User? {
        get { storage[CredentialsUserKey.self] }
        set {
            storage[CredentialsUserKey.self] = newValue
            storage[PasswordInHeaderKey.self] = nil
            storage[RequestAuthenticationKey.self] = nil
            isAuthenticatedByHeader = newValue != nil
        }
    }

    /// Whether this request's own header credentials were its user's password (HTTP Basic),
    /// checked on this request, or within the short while its checks are remembered: the proof
    /// a change that asks for the current password may take from a script. False for a
    /// session, an API token and any other header credential.
    public var isAuthenticatedByPassword: Bool { isAuthenticatedByHeader && storage[PasswordInHeaderKey.self] == true }

    /// Signs in `user`, whose HTTP Basic password was checked, for this request only.
    func signInByPassword(_ user: User) {
        credentialsUser = user
        storage[PasswordInHeaderKey.self] = true
    }
}
