#if OpenIdConnect
import Foundation
import MicroAuth
import MicroCore

/// How a provider's `preferred_username` or email becomes a store username: enforced as every
/// username is (RFC 8265, ``Username``), so that two spellings of one name (fullwidth `ｋａｔｅ`
/// and `kate`) are one user here as in the store, never two provider subjects sharing one.
enum ProviderUsername {
    /// The enforced name; nil for one no user can have (outside the rule, too long).
    static func fold(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.utf8.count <= Authentication.maximumUsernameLength else { return nil }
        return try? Username.enforce(trimmed)
    }

    /// Whether `email` is an address: one `@` between a local part and a domain. Anything
    /// else (`ROOT`) names nobody, even verified: it would be taken for a bare username.
    static func isAddress(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".")
    }
}
#endif
