import MicroAuth
import MicroCore

/// The API token pages and `Authorization: Bearer` (``Accounts/apiTokens``): where tokens are
/// kept, and every text the pages show.
///
/// A token acts as its user with the roles the user store gives the user now: a removed user's
/// tokens stop working at once, changed roles apply to the next request. The user's own
/// password change does not end their tokens (they are credentials of their own, listed and
/// revoked one by one on the tokens page, where a user who fears a leak looks): this keeps the
/// scripts of a user who changes a password on schedule working. An admin's "End sessions",
/// "Set password" and "Disable", and `add-user` over the user, end them with the sessions.
/// Tokens are made and revoked only by a signed-in user; a request signed in by a token may
/// list them and revoke one, not make one (or a leaked token could outlive its own expiry).
///
/// A token is made read-only (``ApiTokenScope/read``) unless its maker chooses
/// ``ApiTokenScope/write``, with any of the app's own ``scopes``: a read-only token is refused
/// any request but `GET`, `HEAD` and `OPTIONS` with a `403`, before the app's filters run.
public struct ApiTokenSettings: Sendable {
    /// Where tokens are kept; nil turns tokens off (the page says so, Bearer is not read).
    public var store: (any ApiTokenStore)?
    /// How long a token's look-up (and its user's roles) is taken from memory, in whole seconds
    /// (zero: not at all): a token revoked on another instance stops working there within this
    /// time. On this instance it stops at once.
    public var cacheLifetime: Duration = .seconds(5)
    /// The realm `WWW-Authenticate: Bearer` names.
    public var realm = "Micro"
    /// The app's own scopes, offered on the form beside the built-in ``ApiTokenScope/read``
    /// and ``ApiTokenScope/write`` (at most ``ApiTokenLimits/declaredScopes``): a token is
    /// made only with scopes offered here, and a route asks for one with
    /// ``/MicroAuth/MicroCore/Request/requireScope(_:)``.
    public var scopes: [ApiTokenScope] = []
    /// What the tokens page says when the users cannot be written (credentials.yml).
    public var readOnlyUsersMessage =
        "These users are managed in credentials.yml: API tokens need a users table (SQLite or PostgreSQL)."
    /// What the tokens page says when tokens are off (no store).
    public var offMessage = "API tokens are not turned on in this app."
    /// The refusal of a token past the limit.
    public var limitMessage = "You already have \(ApiTokenLimits.perUser) tokens, the most there may be: revoke one first."
    /// The refusal of a name.
    public var nameMessage =
        "Give the token a name of 1 to \(ApiTokenLimits.nameLength) characters, without control or text-direction characters."
    /// The refusal of an expiry.
    public var expiryMessage = "Choose an expiry from \(ApiTokenLimits.days.lowerBound) to \(ApiTokenLimits.days.upperBound) days."
    /// The refusal of a scope the app does not offer: `SCOPE` is the name as sent (when it is
    /// one by ``/MicroAuth/ScopeName``'s rule, else "of that name"), `SCOPES` the names offered.
    public var unknownScopeMessage = "There is no scope SCOPE here: choose among SCOPES."
    /// The refusal of more scopes than a token may have.
    public var tooManyScopesMessage = "A token has at most \(ApiTokenLimits.scopesPerToken) scopes."
    /// The `403` of a read-only token on a request that would change something.
    public var readOnlyTokenMessage =
        "This API token is read-only: a request other than GET, HEAD or OPTIONS needs a token with the scope 'write'."
    /// The flash after revoking a token.
    public var revokedMessage = "The token has been revoked."
    /// The refusal of a token made by a request signed in with a token.
    public var tokenByTokenMessage = "Tokens are made by a signed-in user, not with another token."
    /// The 401 of a token that is unknown, expired or revoked.
    public var invalidTokenMessage = "This API token is unknown, expired or revoked."
    /// The refusal of a wrong current password when making a token.
    public var wrongPasswordMessage = "That is not your current password."
    /// The refusal of a token asked by a single sign-on session whose sign-in is older than
    /// ``Accounts/adminProofLifetime``: its provider vouched for the person only then.
    public var signInAgainMessage = "Sign out and sign in again to make a token: your sign-in is too old to confirm it."

    /// Tokens off (no store).
    public init() {}

    /// Tokens kept in `store`.
    public init(store: any ApiTokenStore) {
        self.store = store
    }
}
