import Crypto

/// Who a registration under way is for, kept in the session beside its challenge: the user
/// who gave their password, and the user handle the browser was told. The challenge shows the
/// password was given; this, that it was given by the user now signed in.
struct PendingPasskeyRegistration: Codable, Sendable {
    /// The session key.
    static let key = "_passkey_registration"

    /// The user's key (``MicroAuth/Username/key(_:)``).
    let username: String
    /// The user handle, base64url: the one of the user's passkeys, or a new random one.
    let userHandle: String

    /// A user handle for a user with no passkey yet: random, never derived from the name
    /// (WebAuthn's user handle must not identify the person to the authenticator's other users).
    static func newUserHandle() -> [UInt8] {
        SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
    }
}
