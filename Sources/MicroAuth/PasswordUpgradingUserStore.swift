import MicroCore

/// A user store that can replace a user's hash: a sign-in re-hashes a password stored at
/// another cost than the configured one, as Django and Passlib do.
public protocol PasswordUpgradingUserStore: UserStore {
    /// Replaces the hash of `username`, only if it is still `old` (another change in between
    /// wins). Returns whether it did.
    func replacePasswordHash(of username: String, _ old: String, with new: String) throws -> Bool
    /// ``replacePasswordHash(of:_:with:)`` from a request: by default the synchronous one on
    /// `hasher`'s threads (a file may wait for a lock); a store over the network answers
    /// without holding a thread.
    func replacePasswordHash(of username: String, _ old: String, with new: String, using hasher: PasswordHasher) async throws -> Bool
}

extension PasswordUpgradingUserStore {
    public func replacePasswordHash(of username: String, _ old: String, with new: String, using hasher: PasswordHasher) async throws -> Bool {
        try await hasher.run { try self.replacePasswordHash(of: username, old, with: new) }
    }
}
