#if OpenIdConnect
import Foundation
import MicroAuth
import MicroCore

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
        /// What makes the first link to a store user who has a password.
        public var linkRule: IdentityLinkRule = .proof
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
        /// The claim (`preferred_username`, `email`) that named the user for a link made, or
        /// to be made, in this sign-in; nil when the sign-in followed a link.
        public var linkedBy: String?
        /// Whether the person must first prove they are the store's user (their password, and
        /// code): nobody is signed in and nothing is linked until they do.
        public var needsProof = false

        /// The user and their stamp.
        public init(user: User, credentialStamp: CredentialStamp, linkedBy: String? = nil, needsProof: Bool = false) {
            self.user = user
            self.credentialStamp = credentialStamp
            self.linkedBy = linkedBy
            self.needsProof = needsProof
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

    /// Only the store's users: later sign-ins follow the link of the provider's (`iss`, `sub`)
    /// only. On the first, the user the provider's `preferred_username` names (else its
    /// verified `email`) is linked at once where they have no password (made for single
    /// sign-on) or ``IdentityLinkRule/claim`` says so; else the person proves that user first
    /// (``Result/needsProof``). Roles are the store's; the session ends when the store's user
    /// is removed or changed, as a password session does.
    public static let existing = OpenIdConnectUserMapping { context in
        guard let found = try await storeUser(context) else { throw unmatched }
        return found
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
        let now = Int64(context.now.timeIntervalSince1970)
        let username: String
        var linkedBy: String?
        if let linked = try await context.links.follow(identity, now: now) {
            if let stored = try await context.users.find(username: linked, using: context.hasher) {
                return Result(user: stored.user, credentialStamp: CredentialStamp(stored))
            }
            username = linked
        } else {
            if let found = try await storeUser(context) { return found }
            guard let named = try candidate(context.claims, by: context.linkBy) else {
                throw OpenIdConnectError.notAllowed("the provider sent neither a username nor a verified email address.")
            }
            let name = named.name
            guard try await context.links.link(identity, to: name, now: now) else {
                throw OpenIdConnectError.notAllowed(
                    "the name your provider gives you is already used here by another account at the provider.",
                    logging: "the name \(name) is linked to another subject at \(LogText.escape(identity.issuer))")
            }
            username = name
            linkedBy = named.claim
        }
        let user = User(username: username, name: ProviderClaims.displayName(context.claims.name), roles: User.roles(fromGroups: context.claims.strings[context.rolesClaim] ?? []))
        return Result(user: user, credentialStamp: outsideStamp(user), linkedBy: linkedBy)
    }

    /// The stamp of a user who is not in the store: their name and roles.
    static func outsideStamp(_ user: User) -> CredentialStamp {
        CredentialStamp(username: user.username, passwordHash: "\u{0}openid-connect", roles: user.roles)
    }

    /// The name a first sign-in is matched by, and the claim it came from: `preferred_username`
    /// (unless linking by `email`), else a verified `email` of the form `local@domain`, folded
    /// as usernames are. Nil when the provider sent neither; a `preferred_username` that no user
    /// can have is a refusal, not a reason to read the email instead.
    static func candidate(_ claims: IdTokenClaims, by claim: IdentityLinkClaim) throws(OpenIdConnectError) -> (name: String, claim: String)? {
        if claim == .username, let sent = claims.preferredUsername {
            guard let name = ProviderUsername.fold(sent) else {
                throw .notAllowed(
                    "the username your provider sends is not one a user here can have.",
                    logging: "preferred_username '\(LogText.escape(sent))' is not a username here")
            }
            return (name, "preferred_username")
        }
        guard claims.emailVerified, let email = claims.email, ProviderUsername.isAddress(email), let name = ProviderUsername.fold(email) else { return nil }
        return (name, "email")
    }

    /// The refusal of someone the store has no user for, or whose user is linked to another
    /// account at the provider: one answer for both, naming nobody, so that the page does not
    /// tell a stranger which usernames the store holds.
    static let unmatched = OpenIdConnectError.notAllowed(
        "your account at the identity provider matches no user here. Ask an administrator to add you.")

    /// ``unmatched`` to the browser, `why` to the log.
    static func unmatchedLogging(_ why: String) -> OpenIdConnectError {
        .notAllowed(unmatched.reason, logging: why)
    }

    /// The store's user for the claims: the one linked to the identity, else (first sign-in)
    /// the one named by ``candidate(_:by:)``: linked now when they have no password or the
    /// rule is ``IdentityLinkRule/claim``, else waiting for the person's proof. Nil when the
    /// store has none. A store user who is disabled, or linked to another identity, is
    /// refused, and nothing is linked.
    ///
    /// A link to a user the store no longer holds is dropped, and the sign-in goes on as a
    /// first one: otherwise a new user given that name later would inherit the link.
    static func storeUser(_ context: Context) async throws -> Result? {
        let identity = context.claims.identity
        let now = Int64(context.now.timeIntervalSince1970)
        if let linked = try await context.links.follow(identity, now: now) {
            if let stored = try await context.users.find(username: linked, using: context.hasher) {
                return Result(user: await withAddress(stored.user, context), credentialStamp: CredentialStamp(stored))
            }
            try await context.links.unlink(identity)
        }
        guard let named = try candidate(context.claims, by: context.linkBy),
            let stored = try await context.users.find(username: named.name, using: context.hasher)
        else { return nil }
        let claim = named.claim
        let username = stored.user.username
        guard !stored.isDisabled else { throw unmatchedLogging("\(claim) names \(username), who is disabled: not linked") }
        if let other = try await context.links.identity(linkedTo: username, issuer: identity.issuer), other != identity {
            throw unmatchedLogging("\(claim) names \(username), who is linked to another subject (\(LogText.escape(other.subject))) at \(LogText.escape(identity.issuer))")
        }
        if stored.hasPassword, context.linkRule == .proof {
            return Result(user: stored.user, credentialStamp: CredentialStamp(stored), linkedBy: claim, needsProof: true)
        }
        guard try await context.links.link(identity, to: username, now: now) else {
            throw unmatchedLogging("\(claim) names \(username), who is linked to another subject at \(LogText.escape(identity.issuer))")
        }
        return Result(user: await withAddress(stored.user, context), credentialStamp: CredentialStamp(stored), linkedBy: claim)
    }

    /// `user`, given the provider's verified `email` when the store has no address for them and
    /// can keep one (a users table): mail then reaches them. An address the store has for
    /// another user, or one it refuses, is left out and the sign-in goes on; an address the
    /// store has is never replaced (an admin set it).
    static func withAddress(_ user: User, _ context: Context) async -> User {
        guard user.email == nil, context.claims.emailVerified, let email = context.claims.email,
            let address = try? MailAddress(email), let store = context.users as? any ManagedUserStore
        else { return user }
        do {
            guard try await store.setEmail(of: user.username, to: address.description) == .done else { return user }
            var filled = user
            filled.email = address.description
            return filled
        } catch {
            return user
        }
    }
}
#endif
