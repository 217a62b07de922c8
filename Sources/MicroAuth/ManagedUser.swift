import MicroCore

/// A user as the admin's users page lists them: never their hash.
public struct ManagedUser: Sendable, Equatable {
    /// The user.
    public var user: User
    /// Whether an admin disabled them (``StoredUser/isDisabled``).
    public var isDisabled: Bool
    /// Whether their password was set by someone else and is still to be changed
    /// (``StoredUser/passwordChangeDue``).
    public var passwordChangeDue: Bool

    /// A listed user.
    public init(user: User, isDisabled: Bool, passwordChangeDue: Bool = false) {
        self.user = user
        self.isDisabled = isDisabled
        self.passwordChangeDue = passwordChangeDue
    }
}
