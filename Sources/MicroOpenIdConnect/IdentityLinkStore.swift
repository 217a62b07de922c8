/// Where the links between provider identities and the store's users are kept: one
/// identity per user and issuer, one user per identity.
///
/// ``MemoryIdentityLinkStore`` keeps them in this process (a restart forgets them, and the
/// next sign-in links again by username or verified email); a database-backed store shared
/// by instances belongs with the data layer.
public protocol IdentityLinkStore: Sendable {
    /// The username `identity` is linked to; nil when it is linked to none.
    func username(linkedTo identity: ExternalIdentity) async throws -> String?
    /// The identity at `issuer` that `username` is linked to; nil when none.
    func identity(linkedTo username: String, issuer: String) async throws -> ExternalIdentity?
    /// Links `identity` and `username`, unless either is linked to another already; returns
    /// whether they are linked to each other now. Atomic: two sign-ins racing link once.
    func link(_ identity: ExternalIdentity, to username: String) async throws -> Bool
}
