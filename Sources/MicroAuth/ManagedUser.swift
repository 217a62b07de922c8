import MicroCore

/// A user as the admin's users page lists them: never their hash.
public struct ManagedUser: Sendable, Equatable {
    /// The user.
    public var user: User
    /// Whether an admin disabled them (``StoredUser/isDisabled``).
    public var isDisabled: Bool

    /// A listed user.
    public init(user: User, isDisabled: Bool) {
        self.user = user
        self.isDisabled = isDisabled
    }
}
