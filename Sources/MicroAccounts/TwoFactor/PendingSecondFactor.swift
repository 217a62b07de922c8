import MicroAuth
import MicroCore

/// A sign-in waiting for its second factor, kept in the session between the password and the
/// code: whose, when the password was checked, and the credentials it was checked against
/// (a password changed since ends it).
struct PendingSecondFactor: Codable, Sendable {
    /// The session key.
    static let key = "_two_factor_pending"
    /// The user's name as stored.
    let user: String
    /// When the password was checked (seconds since 1970).
    let at: Int64
    /// The ``CredentialStamp`` text of the user the password was checked for.
    let stamp: String
}
