import MicroCore

/// How a change of a user's email address (``ManagedUserStore/setEmail(of:to:)``) ended.
public enum EmailChange: Sendable, Equatable {
    /// Made (or the user already had that address).
    case done
    /// There is no such user.
    case noSuchUser
    /// Refused: another user has that address, in some case.
    case taken
}
