import Foundation
import SQLKit

/// A row's values as pages show them, and as the app events write them: each field's text by
/// its kind (dates in ISO 8601, yes and no), nil for an empty optional.
struct TableRowText {
    let fields: [TableField]

    /// Every field's value, by property name, as JSON has it (numbers, `Bool`, text).
    func values<Row: Encodable>(of row: Row) throws -> [String: Any] {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let object = try JSONSerialization.jsonObject(with: try encoder.encode(row), options: [.fragmentsAllowed])
        return object as? [String: Any] ?? [:]
    }

    /// The text of `field` in `values`; nil when the row holds none.
    func text(_ field: TableField, in values: [String: Any]) -> String? {
        guard let value = values[field.name], !(value is NSNull) else { return nil }
        switch field.kind {
        case .bool: return Self.bool(value) ? "yes" : "no"
        case .integer:
            if let number = value as? NSNumber { return number.stringValue }
            return "\(value)"
        case .decimal:
            if let number = value as? NSNumber { return Self.decimal(number.doubleValue) }
            return "\(value)"
        case .text, .date, .choice: return value as? String ?? "\(value)"
        }
    }

    /// The text of `field` in a row as the database gave it, read by the field's kind: the
    /// list and the CSV show their cells without decoding and encoding each row again.
    func text(_ field: TableField, in row: any SQLRow) -> String? {
        let column = field.column
        switch field.kind {
        case .text, .choice: return (try? row.decode(column: column, as: String?.self)) ?? nil
        case .integer: return ((try? row.decode(column: column, as: Int64?.self)) ?? nil).map { String($0) }
        case .decimal: return ((try? row.decode(column: column, as: Double?.self)) ?? nil).map(Self.decimal)
        case .bool: return ((try? row.decode(column: column, as: Bool?.self)) ?? nil).map { $0 ? "yes" : "no" }
        case .date: return ((try? row.decode(column: column, as: Date?.self)) ?? nil).map { $0.formatted(.iso8601) }
        }
    }

    /// A number with a fraction as JSON writes it: `3` for a whole one, `2.5` otherwise.
    static func decimal(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// A JSON `Bool` as Foundation's reading gives it.
    static func bool(_ value: Any) -> Bool {
        if let bool = value as? Bool { return bool }
        return (value as? NSNumber)?.boolValue ?? false
    }

    /// The app event's detail of a row added or removed: each field and its value.
    func listing(_ values: [String: Any]) -> String {
        fields.map { "\($0.name): \(text($0, in: values) ?? "–")" }.joined(separator: "; ")
    }

    /// The app event's detail of a change: each field that changed, before and after; nil when
    /// none did.
    func changes(from before: [String: Any], to after: [String: Any]) -> String? {
        let changed = fields.compactMap { field -> String? in
            let (old, new) = (text(field, in: before), text(field, in: after))
            return old == new ? nil : "\(field.name): \(old ?? "–") → \(new ?? "–")"
        }
        return changed.isEmpty ? nil : changed.joined(separator: "; ")
    }

    /// `text` cut to `limit` Unicode scalars, an ellipsis saying so.
    static func bounded(_ text: String, to limit: Int) -> String {
        guard text.unicodeScalars.count > limit else { return text }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.prefix(limit - 1))
        return String(scalars) + "…"
    }
}
