import MicroAuth
import MicroCore

/// One thing that happened to an account, as the activity pages list it. Never a password,
/// code, secret or token: only what happened, when, from where, and a word of detail.
public struct ActivityEvent: Sendable, Equatable, Codable {
    /// Whose account; `unknown user` for failed sign-ins under a name that is no user (never
    /// the text typed).
    public var username: String
    /// What happened (see ``ActivityEvent/Kind``).
    public var event: String
    /// When (seconds since 1970).
    public var at: Int64
    /// The client's address as the throttle counts it.
    public var address: String
    /// The browser and system, in words.
    public var browser: String
    /// A word more: how a sign-in was made (`password`), which admin did it (`by ann`).
    public var detail: String
    /// When the account these events were of ended (removed, or its name given to a new user):
    /// nil for the current account of ``username``. The audit keeps them; the new user's own
    /// activity does not show them.
    public var accountEndedAt: Int64?

    /// An event.
    public init(username: String, event: String, at: Int64, address: String, browser: String, detail: String = "", accountEndedAt: Int64? = nil) {
        self.username = username
        self.event = event
        self.at = at
        self.address = address
        self.browser = browser
        self.detail = detail
        self.accountEndedAt = accountEndedAt
    }

    /// The name under which failed sign-ins for names that are no user are kept: apart from the
    /// accounts' events, within bounds of their own, so that they cannot push those out.
    public static let unknownUser = "unknown user"

    /// The kinds of event Micro records.
    public enum Kind {
        public static let signedIn = "signed_in"
        public static let signInFailed = "sign_in_failed"
        public static let lockedOut = "locked_out"
        public static let signedOut = "signed_out"
        public static let passwordChanged = "password_changed"
        public static let sessionEnded = "session_ended"
        public static let userAdded = "user_added"
        public static let userRemoved = "user_removed"
        public static let userDisabled = "user_disabled"
        public static let userEnabled = "user_enabled"
        public static let rolesChanged = "roles_changed"
        public static let emailChanged = "email_changed"
        public static let passwordReset = "password_reset"
        public static let passwordSet = "password_set"
        public static let setupLinkMade = "setup_link_made"
        public static let setupLinkMailed = "setup_link_mailed"
        public static let resetLinkMailed = "reset_link_mailed"
        public static let sessionsEnded = "sessions_ended"
        /// The user was renamed: recorded under the new name, the old one in its detail.
        public static let renamed = "renamed"
    }
}
