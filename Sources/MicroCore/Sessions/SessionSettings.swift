/// How sessions are kept: the cookie, the secret, the timeouts, the store.
public struct SessionSettings: Sendable {
    /// The cookie's name.
    public var cookieName = "micro.session"
    /// The secret the cookie key is derived from (at least 32 bytes); `MICRO_SESSION_SECRET`
    /// sets it. Production refuses to start without one; development keeps a generated one in
    /// ``secretFile``.
    public var secret: String?
    /// Where development keeps its generated secret, so a restart keeps everyone signed in.
    /// Keep it out of version control (Micro's `.gitignore` does).
    public var secretFile = ".micro-session-secret"
    /// How long a session lasts without a request (10 minutes). (How long an idle connection
    /// stays open is another setting: ``Settings/connectionIdleTimeout``.)
    public var idleTimeout: Duration = .seconds(600)
    /// How long a session lasts from its sign-in however active it is (8 hours).
    public var absoluteLifetime: Duration = .seconds(8 * 3600)
    /// Whether the cookie is marked `Secure` (sent over https only). Nil means: in production,
    /// when ``Settings/publicUrl`` is `https`, or when the app serves TLS (``Settings/tls``).
    /// Set it to false for a production app served over plain http.
    public var secureCookie: Bool?
    /// Where sessions live; nil means the encrypted cookie itself.
    public var store: (any SessionStore)?
    /// What ended sessions early (sign-outs, "sign out everywhere"), checked on every request
    /// whatever the store: a revoked session's cookie no longer opens.
    public var revocations: any SessionRevocations = MemorySessionRevocations()

    /// The defaults.
    public init() {}

    /// ``idleTimeout`` in whole seconds, as sessions keep their times.
    public var idleSeconds: Int64 { idleTimeout.components.seconds }
    /// ``absoluteLifetime`` in whole seconds, as sessions keep their times.
    public var lifetimeSeconds: Int64 { absoluteLifetime.components.seconds }
}
