import MicroCore

/// A user store that cannot be read, or holds something wrong, with where.
public struct UserStoreError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, starting with the file (and line).
    public var description: String
    /// An error saying what is wrong, starting with where.
    public init(_ description: String) { self.description = description }
}
