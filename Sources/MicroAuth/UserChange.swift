import MicroCore

/// How a change an admin asked of a ``ManagedUserStore`` ended.
public enum UserChange: Sendable, Equatable {
    /// Made (or there was nothing to make: the user was already so).
    case done
    /// There is no such user.
    case noSuchUser
    /// Refused: it would leave no enabled user with the admin role.
    case lastAdmin
}
