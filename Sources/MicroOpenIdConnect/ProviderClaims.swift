#if OpenIdConnect
import Foundation
import MicroAuth
import MicroCore

/// What a user from outside the store is made of, bounded: their session cookie holds it,
/// and a cookie past the browsers' limit would be dropped, a sign-in "succeeding" without one.
enum ProviderClaims {
    /// The longest display name kept, in characters (as the users page allows) and in bytes.
    static let maximumNameLength = 200
    static let maximumNameBytes = 800

    /// The `name` claim without controls or invisible formatting, cut to the limit; nil when
    /// nothing is left (the username is shown then).
    static func displayName(_ name: String?) -> String? {
        guard let name else { return nil }
        let refused: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .privateUse, .surrogate]
        var kept = ""
        var bytes = 0
        for character in name.prefix(4 * maximumNameLength) where !character.unicodeScalars.contains(where: { refused.contains($0.properties.generalCategory) }) {
            guard kept.count < maximumNameLength, bytes + character.utf8.count <= maximumNameBytes else { break }
            kept.append(character)
            bytes += character.utf8.count
        }
        let trimmed = kept.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }
}
#endif
