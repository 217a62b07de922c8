import Foundation
import Micro

/// How a provider's `preferred_username` or email becomes a store username: folded as
/// Micro folds usernames today (trimmed, lowercased). Kept in this one function so that a
/// shared username normalisation can replace it in one place.
enum ProviderUsername {
    /// The folded name; nil for one no user can have (empty, too long, control characters).
    static func fold(_ text: String) -> String? {
        let folded = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !folded.isEmpty, folded.utf8.count <= Authentication.maximumUsernameLength,
            !folded.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { return nil }
        return folded
    }
}
