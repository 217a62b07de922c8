#if OpenIdConnect
import Foundation

/// One link between a provider's identity and a username, as the users page and the
/// `links` command list it.
public struct IdentityLink: Sendable, Equatable {
    /// The provider's identity (`iss`, `sub`).
    public var identity: ExternalIdentity
    /// The username it is linked to.
    public var username: String
    /// When it was made.
    public var linkedAt: Date
    /// When a sign-in last followed it (noted at most daily).
    public var lastUsedAt: Date

    /// A link as listed.
    public init(identity: ExternalIdentity, username: String, linkedAt: Date, lastUsedAt: Date) {
        self.identity = identity
        self.username = username
        self.linkedAt = linkedAt
        self.lastUsedAt = lastUsedAt
    }
}

/// An ``IdentityLinkStore`` that can list and remove the links of users: what the users page
/// and the commands use. Both of Micro's stores are one.
public protocol IdentityLinkListing: IdentityLinkStore {
    /// The unexpired links of `usernames` (enforced names), at most `limit`, by username.
    func links(of usernames: [String], limit: Int) async throws -> [IdentityLink]
    /// Removes every link of `username`; returns those removed.
    func unlinkAll(of username: String) async throws -> [IdentityLink]
    /// Moves the links of `username` to `newName` (the user was renamed: single sign-on lands
    /// on the new name), in place of those an earlier holder of `newName` left, which go even
    /// when `username` has none; nothing where a users table's trigger follows renames (it
    /// moved them with the row). In a ``/MicroCore/Database``,
    /// inside any transaction the caller has open on it.
    func rename(_ username: String, to newName: String) async throws
    /// The unexpired links, by username, at most `limit`.
    func allLinks(limit: Int) async throws -> [IdentityLink]
}
#endif
