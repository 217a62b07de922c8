import MicroCore

/// A user store that can list its users: for an admin page, never with their hashes.
public protocol UserListing: UserStore {
    /// Every user, ordered by username. Throws when the store cannot be read.
    func allUsers() async throws -> [User]
}
