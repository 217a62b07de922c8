import MicroAuth
import MicroCore

/// A sign-in waiting for its second factor, kept in the session between the first step and the
/// code: whose, when the first step was checked, the credentials it was checked against (a
/// password changed since ends it), and what the first step was.
struct PendingSecondFactor: Codable, Sendable {
    /// What signed in first.
    enum FirstFactor: String, Codable, Sendable {
        case password
        /// A passkey that did not verify the person: a passkey cannot be the second step then.
        case passkey
    }

    /// The session key.
    static let key = "_two_factor_pending"
    /// The user's name as stored.
    let user: String
    /// When the password was checked (seconds since 1970).
    let at: Int64
    /// The ``CredentialStamp`` text of the user the password was checked for.
    let stamp: String
    /// The first step; nil (a session from before it was noted) is a password.
    var first: FirstFactor? = .password
}
