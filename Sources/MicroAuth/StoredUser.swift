import MicroCore

/// A user as a store keeps them: with their bcrypt password hash.
public struct StoredUser: Sendable, Equatable {
    /// The user.
    public var user: User
    /// The bcrypt hash of their password, as the store holds it: behind a `!` while the user
    /// is disabled (``isDisabled``), which no password verifies.
    public var passwordHash: String
    /// Whether the password was set by someone else (an admin on the users page, `add-user`),
    /// who knows it: until the user chooses their own, a session signed in with it reaches
    /// only the page that changes it, and their scripts' credentials are refused.
    public var passwordChangeDue: Bool

    /// A user with their hash.
    public init(user: User, passwordHash: String, passwordChangeDue: Bool = false) {
        self.user = user
        self.passwordHash = passwordHash
        self.passwordChangeDue = passwordChangeDue
    }

    /// The refusal of a script's credentials (HTTP Basic, an API token) while
    /// ``passwordChangeDue``: the password someone else knows opens nothing but the page that
    /// replaces it.
    public static let passwordChangeDueRefusal = HttpError(
        .forbidden, "Your password was set by an administrator: sign in with a browser and choose your own before using HTTP Basic or API tokens.")

    /// Whether an admin disabled the user: they cannot sign in by any means (a password,
    /// HTTP Basic, single sign-on, a token), and every session they had is over. Code that
    /// admits a user some other way than their password checks this.
    public var isDisabled: Bool { passwordHash.utf8.first == UInt8(ascii: "!") }

    /// The hash without the `!` of a disabled user: what their password is checked against,
    /// so that a refusal takes as long as another's.
    public var enabledHash: String { isDisabled ? String(passwordHash.dropFirst()) : passwordHash }

    /// What stores held, before ``newNoPasswordHash()``, as the hash of a user who has no
    /// password: still accepted (``isNoPasswordHash(_:)``), no longer written, since two
    /// holders of one name would share it, and with it their credential stamp.
    public static let noPasswordHash = "*no-password"

    /// A new hash for a user who has no password: one made to sign in another way only
    /// (single sign-on, a set-up link). It starts with `*`, which libcrypt writes for a
    /// failure and no bcrypt hash has, so that no password ever verifies against it; its
    /// random tail makes each holder's differ, so that a session of a removed user is not
    /// the credential stamp of the next user given their name.
    public static func newNoPasswordHash() -> String {
        noPasswordHash + ":" + Base64Url.encode(SecureRandom.bytes(noPasswordTailBytes))
    }

    private static let noPasswordTailBytes = 18

    /// Whether `hash` is one of a user who has no password: ``newNoPasswordHash()``'s form,
    /// or the bare ``noPasswordHash`` written before it.
    public static func isNoPasswordHash(_ hash: String) -> Bool {
        if hash == noPasswordHash { return true }
        guard hash.hasPrefix(noPasswordHash + ":") else { return false }
        let tail = hash.dropFirst(noPasswordHash.count + 1)
        return tail.utf8.count == (noPasswordTailBytes * 4) / 3 && Base64Url.isAlphabet(String(tail))
    }

    /// Whether the user has a password, and so can sign in with one: a way in beside the
    /// password (single sign-on) must not take over such a user by a name it was sent.
    public var hasPassword: Bool { !Self.isNoPasswordHash(enabledHash) }

    /// Whether `stored` is what a store may hold as a hash: a bcrypt hash or
    /// one of a user without a password (``isNoPasswordHash(_:)``), either behind the `!` of
    /// a disabled user.
    public static func isValidStoredHash(_ stored: String) -> Bool {
        let enabled = stored.utf8.first == UInt8(ascii: "!") ? String(stored.dropFirst()) : stored
        return Password.isValidHash(enabled) || isNoPasswordHash(enabled)
    }
}
