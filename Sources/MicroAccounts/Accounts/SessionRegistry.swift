import MicroAuth
import MicroCore

/// Where the signed-in sessions of each user are listed, for the sessions page. Sessions stay
/// cookie sessions: the registry lists them, and the app ends them through its
/// ``/MicroCore/SessionRevocations``; it does not hold them.
///
/// An implementation keeps at most ``SessionRegistryLimits/perUser`` entries per user (adding
/// one more drops the oldest, whose session the caller then ends) and forgets entries whose
/// session has ended by time.
public protocol SessionRegistry: Sendable {
    /// Adds `session`; returns the entries dropped to keep within the limit.
    func add(_ session: RegisteredSession) async throws -> [RegisteredSession]
    /// Notes that the session whose entry is `id` was seen at `now`.
    func touch(id: String, now: Int64) async throws
    /// The entries of `username` still alive at `now` (seen within `idle` seconds, signed in
    /// within `lifetime`), newest first.
    func sessions(of username: String, now: Int64, idle: Int64, lifetime: Int64) async throws -> [RegisteredSession]
    /// Removes the entry `id` of `username`; returns it, or nil when `username` has none such.
    func remove(id: String, of username: String) async throws -> RegisteredSession?
    /// Removes every entry of `username` but `keeping`; returns them.
    func removeAll(of username: String, keeping: String?) async throws -> [RegisteredSession]
}

/// The bounds every ``SessionRegistry`` keeps.
public enum SessionRegistryLimits {
    /// The most sessions listed per user: one more sign-in ends the oldest.
    public static let perUser = 100
    /// How often a session's "last seen" is written at most, in seconds.
    public static let touchInterval: Int64 = 60
}
