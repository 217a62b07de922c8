import MicroCore

/// Who a sign-in proxy says a request comes from: what ``ProxySignIn`` reads from a header,
/// or another module from a JWT the proxy signed.
public struct ProxyIdentity: Sendable, Equatable {
    /// The username, as the proxy sent it (``ProxySignIn`` enforces the store's rules on it).
    public var username: String
    /// The roles the proxy sends (its groups), for users from outside the store; nil when it
    /// sends none.
    public var roles: [String]?

    /// The person `username`, with `roles` when the proxy sends groups.
    public init(username: String, roles: [String]? = nil) {
        self.username = username
        self.roles = roles
    }
}
