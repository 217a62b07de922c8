import MicroAuth
import MicroCore

extension Request {
    /// The session key naming the user whose sign-in proved two factors by itself: a name, so
    /// that another user signing in on the same session (which keeps its values) does not
    /// inherit it; ``AccountsService`` drops it at each sign-in.
    static let twoFactorSignInKey = "_two_factors_by_passkey"

    /// Notes that `username`'s sign-in on this session proved two factors by itself (a passkey
    /// that verified the person: the device and its PIN, fingerprint or face), so that a second
    /// factor the app requires (`accounts.twoFactor.requiredForRoles`) holds for this session.
    /// Called just after the sign-in, which drops an earlier note, and only for a way in that
    /// proved two factors: the note exempts the session from the required second factor.
    public func noteTwoFactorSignIn(of username: String) {
        session[Self.twoFactorSignInKey] = Username.key(username)
    }

    /// Whether `username`'s sign-in on this session proved two factors by itself
    /// (``noteTwoFactorSignIn(of:)``).
    public func signInProvedTwoFactors(_ username: String) -> Bool {
        session[Self.twoFactorSignInKey] == Username.key(username)
    }
}
