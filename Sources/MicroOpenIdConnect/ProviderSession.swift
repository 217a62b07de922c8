#if OpenIdConnect
/// A session of the app that single sign-on began, with what the provider calls it: what a
/// back-channel logout finds and ends.
public struct ProviderSession: Sendable, Equatable {
    /// The person at the provider.
    public var identity: ExternalIdentity
    /// The provider's session (the ID token's `sid`); nil when the provider sent none.
    public var providerSessionId: String?
    /// The user signed in.
    public var username: String
    /// The name of the sign-in the session carries (under ``sessionKey``), which outlives the
    /// session's own identity: what a back-channel logout revokes.
    public var sessionId: String
    /// The session's own identity when single sign-on began it: the one the sessions page
    /// lists it under, revoked with ``sessionId`` so that the ended session is no longer
    /// listed. Nil for a session noted without it.
    public var listedId: String?
    /// When the session ends however active it is (seconds since 1970): the entry goes then.
    public var expiresAt: Int64

    /// The session key holding the sign-in's name (``sessionId``): a back-channel logout
    /// revokes it, and ends the session whatever identity the session has been given since.
    public static let sessionKey = "_oidc_session"

    /// A session begun by single sign-on.
    public init(identity: ExternalIdentity, providerSessionId: String?, username: String, sessionId: String, listedId: String? = nil, expiresAt: Int64) {
        self.identity = identity
        self.providerSessionId = providerSessionId
        self.username = username
        self.sessionId = sessionId
        self.listedId = listedId
        self.expiresAt = expiresAt
    }
}
#endif
