import MicroAccounts
import MicroAuth
import MicroCore

extension ActivityEvent.Kind {
    /// A user added a passkey (the detail is its name).
    public static let passkeyAdded = "passkey_added"
    /// A passkey was removed, by its user or an admin (the detail is its name).
    public static let passkeyRemoved = "passkey_removed"
    /// A passkey signed its user in or confirmed them (the detail is its name).
    public static let passkeyUsed = "passkey_used"
}
