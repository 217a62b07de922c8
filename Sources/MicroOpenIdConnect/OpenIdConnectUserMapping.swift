#if OpenIdConnect
import Foundation
import Micro

/// How verified claims become the signed-in user: ``existing`` (the provider's user must be
/// one of the store's) or ``any`` (anyone the provider vouches for); an app may write its own.
///
/// ```swift
/// var sso = OpenIdConnect(issuer: "https://login.example.com", clientId: "tools", clientSecret: secret)
/// sso.users = .any
/// ```
public struct OpenIdConnectUserMapping: Sendable {
    /// What a mapping is given: the verified claims and where users and links are kept.
    public struct Context: Sendable {
        /// The ID token's claims, verified.
        public let claims: IdTokenClaims
        /// The app's user store.
        public let users: any UserStore
        /// Where identities are linked to the store's users.
        public let links: any IdentityLinkStore
        /// The claim the roles of a user from outside the store are read from.
        public let rolesClaim: String
        /// Reads the store off the event loops.
        public let hasher: PasswordHasher
        /// Which claim names the user on a first sign-in.
        public var linkBy: IdentityLinkClaim = .username
        /// The sign-in's time (the app's `settings.clock`): links are followed, made and
        /// expired by it, so that tests travel in time without sleeping.
        public var now: Date = Date()
    }

    /// The user to sign in, and the stamp their session stands by.
    public struct Result: Sendable {
        /// The user.
        public var user: User
        /// The session stands while the store's stamp for the user is this one, or while
        /// the mapping's `acceptsSession` says so.
        public var credentialStamp: CredentialStamp

        /// The user and their stamp.
        public init(user: User, credentialStamp: CredentialStamp) {
            self.user = user
            self.credentialStamp = credentialStamp
        }
    }

    /// Maps the claims to a user, or throws ``OpenIdConnectError/notAllowed(_:)`` saying why not.
    public var map: @Sendable (Context) async throws -> Result
    /// Whether a session this mapping signed in still stands once the store no longer holds
    /// the user with the same stamp.
    public var acceptsSession: @Sendable (User, CredentialStamp) -> Bool

    /// A mapping of your own.
    public init(acceptsSession: @escaping @Sendable (User, CredentialStamp) -> Bool = { _, _ in false },
                map: @escaping @Sendable (Context) async throws -> Result) {
        self.map = map
        self.acceptsSession = acceptsSession
    }

    /// Only the store's users: the first sign-in links the user the provider's
    /// `preferred_username` names (else its verified `email`) to the provider's (`iss`,
    /// `sub`); later sign-ins follow that link only. Roles are the store's; the session ends
    /// when the store's user is removed or changed, as a password session does.
    public static let existing = OpenIdConnectUserMapping { context in
        guard let stored = try await storeUser(context) else { throw unmatched }
        return Result(user: stored.user, credentialStamp: CredentialStamp(stored))
    }

    /// Anyone the provider vouches for (within the allowed domains): the store's user when
    /// the store has one of that name (linked as ``existing`` links), else a user made from
    /// the claims, with the roles of the roles claim. That name is linked to the identity
    /// too, so that another subject sending the same `preferred_username` later is refused
    /// rather than taken for the first.
    public static let any = OpenIdConnectUserMapping(acceptsSession: { user, stamp in
        stamp == outsideStamp(user)
    }) { context in
        let identity = context.claims.identity
        let username: String
        if let linked = try await context.links.follow(identity, at: context.now) {
            if let stored = try await context.users.find(username: linked, using: context.hasher) {
                return Result(user: stored.user, credentialStamp: CredentialStamp(stored))
            }
            username = linked
        } else {
            if let stored = try await storeUser(context) {
                return Result(user: stored.user, credentialStamp: CredentialStamp(stored))
            }
            guard let name = candidateName(context.claims, by: context.linkBy) else {
                throw OpenIdConnectError.notAllowed("the provider sent neither a username nor a verified email address.")
            }
            guard try await context.links.link(identity, to: name, at: context.now) else {
                throw OpenIdConnectError.notAllowed("the name your provider gives you is already used here by another account at the provider.")
            }
            username = name
        }
        let roles = (context.claims.strings[context.rolesClaim] ?? []).map { $0.lowercased() }.filter { User.problem(withRole: $0) == nil }
        let user = User(username: username, name: context.claims.name, roles: Array(Set(roles)).sorted().prefix(64).map { $0 })
        return Result(user: user, credentialStamp: outsideStamp(user))
    }

    /// The stamp of a user who is not in the store: their name and roles.
    static func outsideStamp(_ user: User) -> CredentialStamp {
        CredentialStamp(username: user.username, passwordHash: "\u{0}openid-connect", roles: user.roles)
    }

    /// `preferred_username` (unless linking by `email`), else a verified `email`, folded as
    /// usernames are.
    static func candidateName(_ claims: IdTokenClaims, by claim: IdentityLinkClaim) -> String? {
        if claim == .username, let name = claims.preferredUsername.flatMap(ProviderUsername.fold) { return name }
        guard claims.emailVerified else { return nil }
        return claims.email.flatMap(ProviderUsername.fold)
    }

    /// The refusal of someone the store has no user for, or whose user is linked to another
    /// account at the provider: one answer for both, naming nobody, so that the page does not
    /// tell a stranger which usernames the store holds.
    static let unmatched = OpenIdConnectError.notAllowed(
        "your account at the identity provider matches no user here. Ask an administrator to add you.")

    /// The store's user for the claims: the one linked to the identity, else (first sign-in)
    /// the one named by ``candidateName(_:by:)``, linked now. Nil when the store has none; a
    /// store user linked to another identity is refused.
    ///
    /// A link to a user the store no longer holds is dropped, and the sign-in goes on as a
    /// first one: otherwise a new user given that name later would inherit the link.
    static func storeUser(_ context: Context) async throws -> StoredUser? {
        let identity = context.claims.identity
        if let linked = try await context.links.follow(identity, at: context.now) {
            if let stored = try await context.users.find(username: linked, using: context.hasher) { return stored }
            try await context.links.unlink(identity)
        }
        guard let name = candidateName(context.claims, by: context.linkBy),
            let stored = try await context.users.find(username: name, using: context.hasher)
        else { return nil }
        guard try await context.links.link(identity, to: stored.user.username, at: context.now) else { throw unmatched }
        return stored
    }
}
#endif
