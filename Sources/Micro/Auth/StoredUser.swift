/// A user as a store keeps them: with their bcrypt password hash.
public struct StoredUser: Sendable, Equatable {
    /// The user.
    public var user: User
    /// The bcrypt hash of their password.
    public var passwordHash: String

    /// A user with their hash.
    public init(user: User, passwordHash: String) {
        self.user = user
        self.passwordHash = passwordHash
    }
}
