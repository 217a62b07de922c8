import MicroAuth
import MicroCore

/// A registry's entry with what ends its session: the session's identity and absolute end,
/// which never leave the server.
public struct RegisteredSession: Sendable, Equatable {
    /// What the sessions page shows.
    public var entry: SessionEntry
    /// The session's identity (``/MicroCore/Session/id``), for its revocation.
    public var sessionId: String
    /// When the session ends however active it is (seconds since 1970).
    public var expiresAt: Int64

    /// A registered session.
    public init(entry: SessionEntry, sessionId: String, expiresAt: Int64) {
        self.entry = entry
        self.sessionId = sessionId
        self.expiresAt = expiresAt
    }
}
