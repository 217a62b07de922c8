import Foundation
import Micro
import MicroOpenIdConnect

/// What the `MICRO_OIDC_*` variables and `MICRO_PASSWORD_SIGNIN` select: single sign-on
/// with an OpenID Connect provider, beside or instead of passwords.
struct SingleSignOnSettings {
    /// The provider; nil when `MICRO_OIDC_ISSUER` is unset.
    var provider: OpenIdConnect?
    /// Whether passwords still sign in (`MICRO_PASSWORD_SIGNIN=off` turns them off).
    var acceptsPasswords = true
    /// How long an unused identity link stays: a year for `any` (anyone the provider vouches
    /// for adds one); for `existing` as long as the store's user (one link per user at most,
    /// and a dormant user's link must not be claimed again by a name).
    var linkRetention = IdentityLinkRetention.whileTheUserIsKept

    /// Reads the variables; a missing partner (an issuer without a client id, a secret
    /// without an issuer) or a bad value is a ``ConfigurationError`` naming the variable.
    static func fromEnvironment(_ variables: [String: String], readFile: (String) throws -> String = { try String(contentsOfFile: $0, encoding: .utf8) })
        throws(ConfigurationError) -> SingleSignOnSettings
    {
        func value(_ name: String) -> String? {
            guard let text = variables[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
            return text
        }
        var settings = SingleSignOnSettings()
        switch value("MICRO_PASSWORD_SIGNIN")?.lowercased() {
        case nil, "on": settings.acceptsPasswords = true
        case "off": settings.acceptsPasswords = false
        case let other?: throw ConfigurationError("MICRO_PASSWORD_SIGNIN is '\(other)'; it is on or off.")
        }
        var secret = value("MICRO_OIDC_CLIENT_SECRET")
        if let file = value("MICRO_OIDC_CLIENT_SECRET_FILE") {
            guard secret == nil else { throw ConfigurationError("MICRO_OIDC_CLIENT_SECRET and MICRO_OIDC_CLIENT_SECRET_FILE are both set; set one.") }
            do {
                secret = try readFile(file).trimmingCharacters(in: .whitespacesAndNewlines)
            } catch {
                throw ConfigurationError("MICRO_OIDC_CLIENT_SECRET_FILE: cannot read \(file): \(error.localizedDescription)")
            }
            if secret?.isEmpty == true { throw ConfigurationError("MICRO_OIDC_CLIENT_SECRET_FILE: \(file) is empty.") }
        }
        let secretName = variables["MICRO_OIDC_CLIENT_SECRET_FILE"] != nil ? "MICRO_OIDC_CLIENT_SECRET_FILE" : "MICRO_OIDC_CLIENT_SECRET"
        guard let issuer = value("MICRO_OIDC_ISSUER") else {
            for name in ["MICRO_OIDC_CLIENT_ID", "MICRO_OIDC_CLIENT_SECRET", "MICRO_OIDC_CLIENT_SECRET_FILE"] where value(name) != nil {
                throw ConfigurationError("\(name) is set but MICRO_OIDC_ISSUER is not: set the provider's issuer URL too, or unset \(name).")
            }
            guard settings.acceptsPasswords || value("MICRO_PROXY_AUTH") != nil else {
                throw ConfigurationError("MICRO_PASSWORD_SIGNIN is off but neither MICRO_OIDC_ISSUER nor MICRO_PROXY_AUTH is set: nobody could sign in.")
            }
            return settings
        }
        guard let clientId = value("MICRO_OIDC_CLIENT_ID") else {
            throw ConfigurationError("MICRO_OIDC_ISSUER is set but MICRO_OIDC_CLIENT_ID is not: set the client id the provider gave this app.")
        }
        guard let secret else {
            throw ConfigurationError("MICRO_OIDC_ISSUER is set but \(secretName) is not: set the client secret the provider gave this app.")
        }
        var provider = OpenIdConnect(issuer: issuer, clientId: clientId, clientSecret: secret)
        if let name = value("MICRO_OIDC_NAME") { provider.name = name }
        switch value("MICRO_OIDC_USERS")?.lowercased() {
        case nil, "existing": provider.users = .existing
        case "any":
            provider.users = .any
            settings.linkRetention = IdentityLinkRetention.default
        case let other?: throw ConfigurationError("MICRO_OIDC_USERS is '\(other)'; it is existing or any.")
        }
        if let claim = value("MICRO_OIDC_LINK_BY") {
            guard let linkBy = IdentityLinkClaim(rawValue: claim.lowercased()) else {
                throw ConfigurationError("MICRO_OIDC_LINK_BY is '\(claim)'; it is username or email.")
            }
            provider.linkBy = linkBy
        }
        switch value("MICRO_OIDC_LINK")?.lowercased() {
        case nil, "proof": provider.linkRule = .proof
        case "claim": provider.linkRule = .claim
        case let other?: throw ConfigurationError("MICRO_OIDC_LINK is '\(other)'; it is proof or claim.")
        }
        if let domains = value("MICRO_OIDC_ALLOWED_DOMAINS") {
            provider.allowedDomains = domains.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        }
        if let claim = value("MICRO_OIDC_ROLES_CLAIM") { provider.rolesClaim = claim }
        if let groups = value("MICRO_OIDC_REQUIRED_GROUPS") {
            provider.requiredGroups = groups.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !provider.requiredGroups.isEmpty else { throw ConfigurationError("MICRO_OIDC_REQUIRED_GROUPS names no group.") }
        }
        switch value("MICRO_OIDC_ROLE_SYNC")?.lowercased() {
        case nil, "off": provider.roleSync = false
        case "on": provider.roleSync = true
        case let other?: throw ConfigurationError("MICRO_OIDC_ROLE_SYNC is '\(other)'; it is on or off.")
        }
        switch value("MICRO_OIDC_LOGOUT")?.lowercased() {
        case nil, "off": provider.logout = false
        case "on": provider.logout = true
        case let other?: throw ConfigurationError("MICRO_OIDC_LOGOUT is '\(other)'; it is on or off.")
        }
        if let problem = provider.problem { throw ConfigurationError("MICRO_OIDC_ISSUER and friends: \(problem)") }
        settings.provider = provider
        return settings
    }

    /// Keeps the provider's identity links in `database` beside the users table, so that
    /// they survive restarts, every instance follows them, and a removed user's go with them;
    /// and the sessions it began, so that its back-channel logout reaching any instance ends
    /// them. Without a database (credentials.yml), roles cannot be synced: a start-up error.
    mutating func keepLinks(in database: Database?) async throws(ConfigurationError) {
        guard let database else {
            if provider?.roleSync == true {
                throw ConfigurationError(
                    "MICRO_OIDC_ROLE_SYNC is on but the users are in credentials.yml, which the app does not change: keep them in a table (MICRO_USERS_DB or MICRO_DATABASE_URL), or unset MICRO_OIDC_ROLE_SYNC.")
            }
            return
        }
        guard provider != nil else { return }
        provider?.links = try await DatabaseIdentityLinkStore(database, usersTable: "users", retention: linkRetention)
        provider?.providerSessions = try await DatabaseProviderSessionStore(database)
    }
}
