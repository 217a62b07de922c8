import MicroCore

/// How a request was signed in (``MicroCore/Request/authentication``): by its session, by
/// HTTP Basic, by a credential a plugin checks (an API token, with its id and scopes), or not
/// at all.
///
/// ```swift
/// app.get("/api/whoami") { request in
///     let user = try request.authenticate()
///     let how = request.authentication
///     return ["user": user.username, "by": how.kind.name, "scopes": (how.scopes ?? []).joined(separator: " ")]
/// }
/// ```
///
/// Scopes narrow a credential only: a session and HTTP Basic carry none (``scopes`` is nil)
/// and may do whatever their user's roles allow.
public struct RequestAuthentication: Sendable, Hashable, CustomStringConvertible {
    /// A way of signing in. Compared by name; a plugin names its own (the account pages add
    /// `apiToken`), so a `switch` over it has a `default`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// What it is called: `session`, `basic`, `api-token`.
        public let name: String

        /// A way named `name`, for a plugin's own credential.
        public init(_ name: String) {
            self.name = name
        }

        /// Nobody is signed in.
        public static let none = Kind("none")
        /// The session's signed-in user (by the sign-in form, single sign-on or a sign-in
        /// proxy: ``MicroCore/Request/signInSource`` tells which).
        public static let session = Kind("session")
        /// HTTP Basic credentials, checked on this request.
        public static let basic = Kind("basic")
        /// A plugin's header credential that did not say what it is.
        public static let headerCredential = Kind("header")

        public var description: String { name }
    }

    /// How.
    public var kind: Kind
    /// The credential's own id (an API token's, as its owner's tokens page lists it); nil for
    /// a session and HTTP Basic.
    public var credentialId: String?
    /// The scopes the credential carries, in the order it was given them; nil when it is not
    /// narrowed by scopes (a session, HTTP Basic, nobody).
    public var scopes: [String]?

    /// A way of signing in, with the credential's id and scopes when it has them.
    public init(kind: Kind, credentialId: String? = nil, scopes: [String]? = nil) {
        self.kind = kind
        self.credentialId = credentialId
        self.scopes = scopes
    }

    /// Nobody is signed in.
    public static let none = RequestAuthentication(kind: .none)
    /// Signed in by the session.
    public static let session = RequestAuthentication(kind: .session)
    /// Signed in by HTTP Basic.
    public static let basic = RequestAuthentication(kind: .basic)

    /// Whether someone is signed in.
    public var isSignedIn: Bool { kind != .none }

    /// Whether the request may do what `scope` names: always for a credential without scopes
    /// (a session, HTTP Basic), else when the credential carries it; ``ScopeName/write``
    /// includes ``ScopeName/read``. False when nobody is signed in.
    public func has(scope: String) -> Bool {
        guard isSignedIn else { return false }
        guard let scopes else { return true }
        return scopes.contains(scope) || (scope == ScopeName.read && scopes.contains(ScopeName.write))
    }

    /// Whether a request of `method` is within the credential's scopes: one that only reads
    /// (`GET`, `HEAD`, `OPTIONS`) always is; any other needs ``ScopeName/write``.
    /// Always for a request without scopes (a session, HTTP Basic, nobody).
    public func allows(_ method: HttpMethod) -> Bool {
        switch method {
        case .GET, .HEAD, .OPTIONS: true
        default: scopes == nil || has(scope: ScopeName.write)
        }
    }

    public var description: String {
        var text = kind.name
        if let credentialId { text += " " + credentialId }
        if let scopes { text += " [" + scopes.joined(separator: " ") + "]" }
        return text
    }
}
