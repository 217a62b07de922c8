/// Where the links between provider identities and the store's users are kept: one
/// identity per user and issuer, one user per identity.
///
/// ``MemoryIdentityLinkStore`` keeps them in this process (a restart forgets them, and the
/// next sign-in links again by username or verified email); ``DatabaseIdentityLinkStore``
/// keeps them in SQLite or PostgreSQL, shared by instances.
public protocol IdentityLinkStore: Sendable {
    /// The username `identity` is linked to; nil when it is linked to none.
    func username(linkedTo identity: ExternalIdentity) async throws -> String?
    /// The identity at `issuer` that `username` is linked to; nil when none.
    func identity(linkedTo username: String, issuer: String) async throws -> ExternalIdentity?
    /// Links `identity` and `username`, unless either is linked to another already; returns
    /// whether they are linked to each other now. Atomic: two sign-ins racing link once.
    func link(_ identity: ExternalIdentity, to username: String) async throws -> Bool
    /// Removes the link of `identity`, if any: its user is gone from the store, and a new
    /// user of that name must not inherit it.
    func unlink(_ identity: ExternalIdentity) async throws
}
