import MicroAuth
import MicroCore

extension ActivityEvent.Kind {
    /// A user made an API token (the detail is its name).
    public static let tokenCreated = "token_created"
    /// A user revoked an API token (the detail is its name).
    public static let tokenRevoked = "token_revoked"
}
