import Foundation
import MicroAuth
import MicroCore

/// The rule for a token's name: what its owner will recognise on the tokens page, and nothing
/// that could make the page say something else.
enum ApiTokenName {
    /// `typed` trimmed and in NFC, or nil when it is empty, longer than
    /// ``ApiTokenLimits/nameLength`` characters, or holds a control, format (text direction,
    /// zero width), private-use, unassigned, surrogate or line/paragraph separator scalar.
    static func accepted(_ typed: String) -> String? {
        guard typed.utf8.count <= ApiTokenLimits.nameLength * 16 else { return nil }
        let name = typed.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        guard !name.isEmpty, name.count <= ApiTokenLimits.nameLength, name.utf8.count <= ApiTokenLimits.nameLength * 4 else { return nil }
        for scalar in name.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .privateUse, .unassigned, .surrogate, .lineSeparator, .paragraphSeparator: return nil
            default: continue
            }
        }
        return name
    }
}
