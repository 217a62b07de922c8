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
    /// When the session began, in milliseconds since 1970
    /// (``/MicroCore/SessionData/createdMilliseconds``): what its revocations are compared with,
    /// finer than the entry's ``SessionEntry/signedInAt``.
    public var signedInMilliseconds: Int64

    /// A registered session; without `signedInMilliseconds`, taken as begun at the start of
    /// the entry's second (a revocation in that second ends it).
    public init(entry: SessionEntry, sessionId: String, expiresAt: Int64, signedInMilliseconds: Int64? = nil) {
        self.entry = entry
        self.sessionId = sessionId
        self.expiresAt = expiresAt
        self.signedInMilliseconds = signedInMilliseconds ?? entry.signedInAt * 1000
    }
}
