import Foundation
import Micro
import MicroOpenIdConnect

/// What the `MICRO_PROXY_*` variables select: the identity a sign-in proxy in front of the
/// app vouches for, in a header (`MICRO_PROXY_AUTH=header`) or a JWT it signs (`jwt`).
enum SignInProxySettings {
    /// The plugin the variables describe; nil when `MICRO_PROXY_AUTH` is unset. A bad value,
    /// or a missing partner, is a ``ConfigurationError`` naming the variable.
    static func fromEnvironment(_ variables: [String: String], trustedProxies: [String]) throws(ConfigurationError) -> (any AppPlugin)? {
        func value(_ name: String) -> String? {
            guard let text = variables[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
            return text
        }
        let users: ProxyUsers
        switch value("MICRO_PROXY_USERS")?.lowercased() {
        case nil, "existing": users = .existing
        case "any": users = .any
        case let other?: throw ConfigurationError("MICRO_PROXY_USERS is '\(other)'; it is existing or any.")
        }
        let signOutUrl = value("MICRO_PROXY_SIGNOUT_URL")
        switch value("MICRO_PROXY_AUTH")?.lowercased() {
        case nil:
            for name in [
                "MICRO_PROXY_USER_HEADER", "MICRO_PROXY_GROUPS_HEADER", "MICRO_PROXY_JWT_HEADER", "MICRO_PROXY_JWKS_URL", "MICRO_PROXY_ISSUER",
                "MICRO_PROXY_AUDIENCE", "MICRO_PROXY_USER_CLAIM", "MICRO_PROXY_GROUPS_CLAIM", "MICRO_PROXY_ALLOWED_DOMAINS",
                "MICRO_PROXY_TRUSTED_ADDRESSES",
            ] where value(name) != nil {
                throw ConfigurationError("\(name) is set but MICRO_PROXY_AUTH is not: set it to header or jwt, or unset \(name).")
            }
            return nil
        case "header":
            let doors = value("MICRO_PROXY_TRUSTED_ADDRESSES").map {
                $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
            if doors?.isEmpty == true { throw ConfigurationError("MICRO_PROXY_TRUSTED_ADDRESSES is set but names no address.") }
            if let bad = doors?.first(where: { AddressRange($0) == nil }) {
                throw ConfigurationError("MICRO_PROXY_TRUSTED_ADDRESSES has '\(bad)', which is not an IP address or a range such as 10.0.0.5 or 10.0.0.0/24.")
            }
            guard !trustedProxies.isEmpty else {
                throw ConfigurationError("MICRO_PROXY_AUTH is header but MICRO_TRUSTED_PROXIES is empty: the header is believed only from the proxies listed there.")
            }
            var door = ProxySignIn()
            door.trustedAddresses = doors
            if let header = value("MICRO_PROXY_USER_HEADER") { door.userHeader = header }
            door.groupsHeader = value("MICRO_PROXY_GROUPS_HEADER")
            door.users = users
            door.signOutUrl = signOutUrl
            if let problem = door.problem { throw ConfigurationError("MICRO_PROXY_*: \(problem)") }
            return door
        case "jwt":
            if value("MICRO_PROXY_TRUSTED_ADDRESSES") != nil {
                throw ConfigurationError("MICRO_PROXY_TRUSTED_ADDRESSES is for MICRO_PROXY_AUTH=header: a JWT proves itself from any address.")
            }
            var missing: [String] = []
            for name in ["MICRO_PROXY_JWT_HEADER", "MICRO_PROXY_JWKS_URL", "MICRO_PROXY_ISSUER", "MICRO_PROXY_AUDIENCE"] where value(name) == nil {
                missing.append(name)
            }
            guard missing.isEmpty, let header = value("MICRO_PROXY_JWT_HEADER"), let jwks = value("MICRO_PROXY_JWKS_URL"),
                let issuer = value("MICRO_PROXY_ISSUER"), let audience = value("MICRO_PROXY_AUDIENCE")
            else {
                throw ConfigurationError("MICRO_PROXY_AUTH is jwt but \(missing.joined(separator: ", ")) \(missing.count == 1 ? "is" : "are") not set.")
            }
            var door = ProxyJwtSignIn(header: header, jwksUrl: jwks, issuer: issuer, audience: audience)
            door.userClaim = value("MICRO_PROXY_USER_CLAIM")
            if let domains = value("MICRO_PROXY_ALLOWED_DOMAINS") {
                door.allowedDomains = domains.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
            door.groupsClaim = value("MICRO_PROXY_GROUPS_CLAIM")
            door.users = users
            door.signOutUrl = signOutUrl
            if let problem = door.problem { throw ConfigurationError("MICRO_PROXY_*: \(problem)") }
            return door
        case let other?:
            throw ConfigurationError("MICRO_PROXY_AUTH is '\(other)'; it is header or jwt.")
        }
    }
}
