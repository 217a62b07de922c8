import MicroCore

extension Request {
    /// The user a script's header credentials (HTTP Basic, an API token) named, for this
    /// request only. Setting it marks the request as authenticated by its header fields, which
    /// is what the core's caching and CSRF checks know of it: a plugin that checks a credential
    /// of its own (an API token) sets it, from a credential check
    /// (``/MicroCore/App/addCredentialCheck(_:file:line:_:)``), once the credential is proven.
    public var credentialsUser: User? {
        get { storage[CredentialsUserKey.self] }
        set {
            storage[CredentialsUserKey.self] = newValue
            isAuthenticatedByHeader = newValue != nil
        }
    }
}
