import Foundation

/// One field of a table page's row: a property of the row type, a column of the table, and an
/// input of its form. ``TablePages`` learns them from the row type's `Decodable` conformance.
public struct TableField: Sendable, Equatable {
    /// What a field holds, which makes its input and how its value is shown.
    public enum Kind: Sendable, Equatable {
        /// Text: `String`.
        case text
        /// A whole number: `Int` and the other integer types.
        case integer
        /// A number with a fraction: `Double`, `Float`.
        case decimal
        /// Yes or no, a checkbox: `Bool`.
        case bool
        /// A day or an instant: `Date`, shown and typed as ISO 8601 (`2026-03-01`).
        case date
        /// One of a `String` enumeration's raw values (`CaseIterable`), a select.
        case choice([String])
    }

    /// The property's name: the form's field and the JSON key.
    public let name: String
    /// The column's name: the property's in snake case (`dueAt` is `due_at`).
    public let column: String
    /// What it holds.
    public let kind: Kind
    /// Whether the property is optional: the form may leave it empty.
    public let isOptional: Bool

    /// The field's label on pages: its name in words (`dueAt` is `Due at`).
    public var label: String {
        var words = ""
        for character in name {
            if character.isUppercase, !words.isEmpty { words += " " + character.lowercased() } else { words.append(character) }
        }
        return words.prefix(1).uppercased() + words.dropFirst().replacingOccurrences(of: "_", with: " ")
    }

    init(name: String, kind: Kind, isOptional: Bool) {
        self.name = name
        self.column = Self.snakeCased(name)
        self.kind = kind
        self.isOptional = isOptional
    }

    /// `name` as a column is commonly named, as Foundation's `convertToSnakeCase` writes it:
    /// `dueAt` is `due_at`, `serialURL` is `serial_url`.
    static func snakeCased(_ name: String) -> String {
        let characters = Array(name)
        var result = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previousIsLower = characters[index - 1].isLowercase || characters[index - 1].isNumber
                let nextIsLower = index + 1 < characters.count && characters[index + 1].isLowercase
                if previousIsLower || (characters[index - 1].isUppercase && nextIsLower) { result += "_" }
            }
            result += character.lowercased()
        }
        return result
    }
}
