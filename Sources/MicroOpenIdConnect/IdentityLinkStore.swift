#if OpenIdConnect
import Foundation

/// Where the links between provider identities and the store's users are kept: one
/// identity per user and issuer, one user per identity.
///
/// ``MemoryIdentityLinkStore`` keeps them in this process (a restart forgets them, and the
/// next sign-in links again by username or verified email); ``DatabaseIdentityLinkStore``
/// keeps them in SQLite or PostgreSQL, shared by instances.
///
/// A link unused for the store's retention (``IdentityLinkRetention/default``: a year) is as
/// no link, and is deleted when links are made: in the `any` mapping every person the provider
/// vouches for makes one, so without expiry the table would grow for ever.
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
    /// The username `identity` is linked to at `now` (whole seconds since 1970), noting the
    /// link as used then (a link unused for the retention is as none); what a sign-in follows.
    func follow(_ identity: ExternalIdentity, now: Int64) async throws -> String?
    /// ``link(_:to:)`` made at `now` (whole seconds since 1970), first deleting links unused
    /// for the retention.
    func link(_ identity: ExternalIdentity, to username: String, now: Int64) async throws -> Bool
}

extension IdentityLinkStore {
    /// A store of your own that keeps no use times: ``username(linkedTo:)``.
    public func follow(_ identity: ExternalIdentity, now: Int64) async throws -> String? {
        try await username(linkedTo: identity)
    }

    /// A store of your own that keeps no use times: ``link(_:to:)``.
    public func link(_ identity: ExternalIdentity, to username: String, now: Int64) async throws -> Bool {
        try await link(identity, to: username)
    }
}

/// How long a link unused stays: the sign-ins it follows keep it.
public enum IdentityLinkRetention {
    /// A year: someone signing in at least yearly keeps their link; the rest sign in afresh
    /// (linked again by username or verified email, as on a first sign-in).
    public static let `default`: Duration = .seconds(365 * 86_400)
    /// For ``OpenIdConnectUserMapping/existing``: as long as the store's user (the users table
    /// bounds the links, one per user), so that a dormant user's link is never claimed afresh
    /// by a name the provider sends.
    public static let whileTheUserIsKept: Duration = .seconds(100 * 365 * 86_400)
    /// A link's last use is written at most once this often, so that a sign-in is a read.
    static let useGranularity: Int64 = 86_400
}
#endif
