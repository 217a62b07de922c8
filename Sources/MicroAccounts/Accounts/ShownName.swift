import Foundation

/// The rule for a name a user gives something of theirs (an API token, a passkey): what they
/// will recognise on their page, and nothing that could make the page say something else.
public enum ShownName {
    /// `typed` trimmed and in NFC, or nil when it is empty, longer than `limit` characters, or
    /// holds a control, format (text direction, zero width), private-use, unassigned, surrogate
    /// or line/paragraph separator scalar.
    public static func accepted(_ typed: String, limit: Int) -> String? {
        guard typed.utf8.count <= limit * 16 else { return nil }
        let name = typed.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        guard !name.isEmpty, name.count <= limit, name.utf8.count <= limit * 4 else { return nil }
        for scalar in name.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .privateUse, .unassigned, .surrogate, .lineSeparator, .paragraphSeparator: return nil
            default: continue
            }
        }
        return name
    }
}
