/// The passkeys' settings (``MicroAccounts/Accounts/passkeys``): how many a user may have, the name the
/// browser's dialog shows, and the pages' texts.
public struct PasskeySettings: Sendable {
    /// The most passkeys one user may have.
    public var limit = 10
    /// The app's name in the browser's passkey dialog; nil for the relying party's host name.
    public var appName: String?
    /// The sign-in page's button.
    public var signInLabel = "Sign in with a passkey"
    /// Where the sign-in page's script asks for a sign-in's options and posts the answer.
    public var signInPath = "/signin/passkey"
    /// The second step's button, beside the code.
    public var secondStepLabel = "Use a passkey instead"
    /// Where the second step's page asks for the options and posts the answer.
    public var secondStepPath = "/signin/two-factor/passkey"
    /// The refusal of a sign-in by passkey, whatever the reason: an unknown passkey, a removed
    /// or disabled user, a bad signature or an expired request say no more than a wrong
    /// password does.
    public var refusedMessage = "That passkey did not sign you in. Try again, or sign in with your password."
    /// What the page says where the users cannot have passkeys (no database for the account
    /// pages).
    public var unavailableMessage = "Passkeys need a database for the account pages (Accounts(database:))."
    /// What the page says where the browser would refuse a passkey: an IP address, plain HTTP
    /// other than localhost, or an app under a path of a shared host.
    public var noRelyingPartyMessage =
        "Passkeys work only where this app is reached by a domain name over HTTPS (or at localhost): set MICRO_PUBLIC_URL to that address."
    /// What the page says where the app signs in by single sign-on alone.
    public var singleSignOnOnlyMessage = "This app signs you in through your organization's single sign-on: it keeps no passkeys."
    /// The refusal of a passkey as the second step after a passkey that did not verify the person.
    public var codeAfterPasskeyMessage = "Your passkey began this sign-in: give the code from your authenticator app, or a recovery code."
    /// The refusal of a change by a single sign-on session whose sign-in is too old to confirm it.
    public var signInAgainMessage = "Sign out and sign in again to change your passkeys: your sign-in is too old to confirm it."
    /// The add form's second button: one of the user's passkeys confirms the addition instead
    /// of the password (and code).
    public var addWithPasskeyLabel = "Add, confirmed with a passkey you have"
    /// What the page says to a user signed in by single sign-on with no password here: a
    /// passkey is added only with the password or another passkey.
    public var noPasswordToAddMessage = "Your account has no password here: a passkey is added with your password, or with a passkey you have."
    /// The refusal of a passkey over the limit.
    public var fullMessage = "You have as many passkeys as you may: remove one first."
    /// The refusal of a passkey that is registered already.
    public var takenMessage = "This passkey is registered already."
    /// The refusal of a name that is empty, too long, or holds control or text-direction characters.
    public var nameMessage: String
    /// The flash after adding one.
    public var addedMessage = "Passkey added."
    /// The flash after removing one.
    public var removedMessage = "Passkey removed."
    /// The flash after renaming one.
    public var renamedMessage = "Passkey renamed."
    /// The passkeys page's button that confirms its changes with a passkey instead of the
    /// current password (and code).
    public var confirmLabel: String
    /// The flash after confirming with a passkey.
    public var confirmedMessage: String
    /// The refusal of a confirmation by passkey for a user who has none.
    public var noPasskeyToConfirmMessage: String

    /// The longest name, in characters.
    static let nameLength = 64

    /// The defaults.
    public init() {
        // Set here, not as the properties' defaults: as defaults (one reading a static of this
        // type), they made `Accounts()` and `Accounts(database:)` crash in Swift 6's debug
        // build, in a miscompiled destroy of `Accounts`.
        nameMessage = "Give the passkey a name of 1 to \(Self.nameLength) characters, without control or text-direction characters."
        confirmLabel = "Confirm with a passkey"
        confirmedMessage = "Confirmed with your passkey: you can rename and remove passkeys for a few minutes (adding one asks again)."
        noPasskeyToConfirmMessage = "You have no passkey to confirm with: give your current password."
    }
}
