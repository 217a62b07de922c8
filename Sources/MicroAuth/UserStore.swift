import MicroCore

/// Where users are looked up: ``YamlUserStore`` (credentials.yml) or ``SqliteUserStore``.
public protocol UserStore: Sendable {
    /// The user named `username` (in any spelling of it: ``Username``); nil when there is none. Throws when the
    /// store cannot be read (the request then gets a 503).
    func find(username: String) throws -> StoredUser?
    /// ``find(username:)`` for a sign-in: by default the synchronous look-up on `hasher`'s
    /// threads (a store on disk may wait for a lock); a store over the network answers without
    /// holding a thread.
    func find(username: String, using hasher: PasswordHasher) async throws -> StoredUser?
    /// The bcrypt cost most of the store's hashes use; nil when unknown.
    var typicalCost: Int? { get }
    /// The highest bcrypt cost among the store's hashes: a refused sign-in takes as long as a
    /// check at this cost, so that the time tells no name from another. Nil when unknown.
    var slowestCost: Int? { get }
    /// Whether `stamp` is the current ``CredentialStamp`` of `username`: false once the user is
    /// removed or their hash changed, and the sessions they signed in with are then over.
    /// Called on every request of a signed-in session, so it answers from memory and never
    /// waits on I/O. True when the store cannot tell.
    func isCurrent(_ stamp: CredentialStamp, username: String) -> Bool
}

extension UserStore {
    public var typicalCost: Int? { nil }
    public var slowestCost: Int? { typicalCost }
    public func isCurrent(_ stamp: CredentialStamp, username: String) -> Bool { true }
    public func find(username: String, using hasher: PasswordHasher) async throws -> StoredUser? {
        try await hasher.run { try self.find(username: username) }
    }
}
