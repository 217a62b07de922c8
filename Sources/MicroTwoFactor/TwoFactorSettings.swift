import MicroAccounts
import MicroAuth
import MicroCore

/// The second factor's settings (``MicroAccounts/Accounts/twoFactor``): the name authenticator apps show,
/// whether it is required, and the pages' texts.
public struct TwoFactorSettings: Sendable {
    /// The issuer in the `otpauth` URI: the app's name as authenticator apps list it.
    public var issuer = "Micro"
    /// The key that seals the secrets and keys the recovery codes, from `MICRO_DATA_KEY`
    /// unless set here: see ``DataKey``.
    public var dataKey = DataKeySettings()
    /// Who must have a second factor: nil for nobody (each user chooses), `[]` for everyone,
    /// or the roles that must (`["admin"]`). A signed-in user who must and has none is sent to
    /// the two-factor page until they turn it on (that page, the rest of their account and
    /// sign-out stay reachable).
    public var requiredForRoles: [String]?
    /// Where the second step of a sign-in is.
    public var signInPath = "/signin/two-factor"
    /// How long the second step waits after the password was checked.
    public var stepLifetime: Duration = .seconds(300)
    /// The refusal of a wrong code.
    public var wrongCodeMessage = "That code is not right. Try the one your app shows now, or a recovery code."
    /// The refusal of a right code used a second time in its step.
    public var reusedCodeMessage = "That code was just used. Wait for the next one your app shows, then enter it."
    /// What the page says where the users cannot have a second factor (a users file, or no
    /// database for the account pages).
    public var unavailableMessage = "These users are managed in credentials.yml: a second factor needs a users table (SQLite or PostgreSQL) and a database for the account pages."
    /// What the page says in production without `MICRO_DATA_KEY`.
    public var noKeyMessage = "Two-factor sign-in needs MICRO_DATA_KEY to be set on the server."
    /// The answer (503) when a user's secret does not open with the server's key: their codes
    /// cannot be checked, and that is no failed sign-in of theirs.
    public var unreadableMessage = "Two-factor sign-in cannot be checked right now: the server cannot read your second factor. Please tell its administrators."
    /// The refusal of a setup started, or confirmed, while it is on.
    public var alreadyOnMessage = "Two-factor sign-in is already on: turn it off first."
    /// The flash after turning it off.
    public var disabledMessage = "Two-factor sign-in is off."
    /// The flash on the two-factor page for a user who must turn it on.
    public var requiredMessage = "This app needs a second factor for your account: turn on two-factor sign-in to go on."

    /// The defaults.
    public init() {}
}
