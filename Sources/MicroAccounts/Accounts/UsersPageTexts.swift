import MicroAuth
import MicroCore

/// The texts of the admin's users page (``Accounts/usersPath``): flashes and refusals, each
/// replaceable.
public struct UsersPageTexts: Sendable {
    /// What the page says when the users' file cannot be written (credentials.yml).
    public var readOnly = "These users are managed in credentials.yml: edit the file to add, change or remove one (\(OperatorCommand.hashPassword()) makes a hash)."
    /// The flash after adding a user (`NAME` is their name).
    public var added = "NAME has been added."
    /// The flash after setting a user's password.
    public var passwordSet = "NAME has a new password; their sessions, API tokens and passkeys have ended."
    /// The flash after changing a user's roles.
    public var rolesChanged = "The roles of NAME have been changed; their sessions have ended."
    /// The flash after disabling a user.
    public var disabled = "NAME has been disabled; their sessions, API tokens and passkeys have ended."
    /// The flash after enabling a user.
    public var enabled = "NAME has been enabled."
    /// The flash after removing a user.
    public var removed = "NAME has been removed; their sessions have ended."
    /// The flash after turning a user's two-factor sign-in off.
    public var twoFactorReset = "Two-factor sign-in is off for NAME: their password alone signs them in."
    /// The refusal of turning two-factor sign-in off for a user who does not have it on.
    public var twoFactorNotOn = "NAME does not have two-factor sign-in on."
    /// The flash after ending a user's sessions.
    public var sessionsEnded = "Every session, API token and passkey of NAME has ended: they add their passkeys again."
    /// The refusal of a name that is taken.
    public var nameTaken = "There is already a user of that name."
    /// The refusal of roles that are not role names.
    public var badRoles = "Roles are names of lowercase letters, digits, '-' or '_', separated by spaces or commas."
    /// The refusal of a display name that is too long or holds control characters.
    public var badName = "The name must be at most 200 characters, with no control characters."
    /// The refusal of a set-up link for a disabled user (it would open nothing).
    public var setupLinkDisabled = "A disabled user's link would open nothing: enable them first."
    /// The refusal of an address another user has.
    public var emailTaken = "Another user has that email address."
    /// The flash after changing a user's email address.
    public var emailChanged = "The email address of NAME has been changed."
    /// The refusal of a change that would leave no enabled admin.
    public var lastAdmin = "That would leave no enabled admin: make another user an admin first."
    /// The refusal of a change asked with an API token: tokens do not manage users.
    public var tokenRefused = "Users cannot be changed with an API token: sign in to the users page."
    /// The refusal of a change from a single sign-on session whose sign-in is too old to
    /// confirm it.
    public var signInAgain = "Sign out and sign in again to change users: your sign-in is too old to confirm it."
    /// The flash after the acting admin confirmed who they are.
    public var confirmed = "Confirmed: changes will not ask for your password again for a few minutes."
    /// The flash after revoking one of a user's API tokens.
    public var tokenRevoked = "A token of NAME has been revoked."
    /// The flash after revoking every API token of a user.
    public var tokensRevoked = "Every token of NAME has been revoked."
    /// The answer to a token form where the app has no API tokens (``Accounts/apiTokens``).
    public var noTokens = "This app has no API tokens: Accounts(database:) keeps them."
    /// The refusal of a token that is not the user's, or no longer live.
    public var noSuchToken = "NAME has no such live token."
    /// The answer for a user who is not there.
    public var noSuchUser = "There is no such user."

    /// The texts in English.
    public init() {}
}
