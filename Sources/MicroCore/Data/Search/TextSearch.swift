import Foundation
import SQLKit

/// A case-insensitive "contains" over one or more columns, as a predicate: the rows where any
/// of the columns holds the search text, whatever its case, the same on SQLite and PostgreSQL.
/// Most code writes it through `where(searching:in:)`.
///
/// ```swift
/// let flags = try await request.database.sql.select().columns("*").from("flags")
///     .where(searching: request.params["q"] ?? "", in: ["name", "note"])
///     .all(decoding: Flag.self)
/// ```
///
/// - The text is literal: `%`, `_` and `\` are escaped (an explicit `ESCAPE`), and the text is
///   bound as a parameter, never written into the statement.
/// - Both sides are folded alike: Unicode's default lowercase mapping (not a language's:
///   `İ` is `i̇`, `I` is `i`, `ı` stays itself), then NFC, then `ς` as `σ`. So `är` finds
///   `Ärger` whether it was stored composed or decomposed; `ß` finds `ß` and `ẞ`, not `ss`.
///   SQLite folds through a function Micro registers on its connections (its own `lower()`
///   folds ASCII alone); PostgreSQL through `lower()` under the ICU root collation
///   (`und-x-icu`: PostgreSQL 13 or later built with ICU, a UTF-8 database), whatever the
///   database's locale.
/// - The text is trimmed of surrounding white space and made NFC. Empty, it matches every row;
///   longer than ``maxLength`` Unicode scalars, or holding a NUL (which neither database can
///   store in text), it is a `400` ``HttpError``.
/// - A column that is not text is searched as its text (`CAST(... AS TEXT)`), which the two
///   databases write alike for integers and text, not always for other types.
public struct TextSearch: SQLExpression {
    /// The longest search text, in Unicode scalars once made NFC.
    public static let maxLength = 200

    /// The text searched for: trimmed and NFC; empty when it matches every row.
    public let text: String
    /// The columns searched; a row matches when any of them holds the text.
    public let columns: [any SQLExpression]

    /// A search for `text` in the columns named `columns` (a row matches when any holds it).
    public init(_ text: String, in columns: [String]) throws(HttpError) {
        try self.init(text, in: columns.map { SQLColumn($0) })
    }

    /// A search for `text` in `columns`, expressions such as `SQLColumn("name", table: "flags")`.
    public init(_ text: String, in columns: [any SQLExpression]) throws(HttpError) {
        let searched = text.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        guard searched.unicodeScalars.count <= Self.maxLength else {
            throw HttpError(.badRequest, "The search text is too long: at most \(Self.maxLength) characters.")
        }
        guard !searched.unicodeScalars.contains("\0") else {
            throw HttpError(.badRequest, "The search text holds a NUL character.")
        }
        self.text = searched
        self.columns = columns
    }

    /// Whether it matches every row (the text is empty), so that it adds nothing to a query.
    public var matchesEverything: Bool { text.isEmpty }

    /// The `LIKE` pattern: the text with `%`, `_` and the escape character escaped, by Unicode
    /// scalar, between two `%`.
    var pattern: String {
        var pattern = "%"
        for scalar in text.unicodeScalars {
            if scalar == "%" || scalar == "_" || scalar == Self.escape { pattern.unicodeScalars.append(Self.escape) }
            pattern.unicodeScalars.append(scalar)
        }
        return pattern + "%"
    }

    /// The escape character of the pattern, bound as a parameter: a `'\'` written into the
    /// statement would read differently on a PostgreSQL without `standard_conforming_strings`.
    static let escape: Unicode.Scalar = "\\"

    public func serialize(to serializer: inout SQLSerializer) {
        if matchesEverything { return serializer.dialect.literalBoolean(true).serialize(to: &serializer) }
        if columns.isEmpty { return serializer.dialect.literalBoolean(false).serialize(to: &serializer) }
        let pattern = pattern
        serializer.write("(")
        for (index, column) in columns.enumerated() {
            if index > 0 { serializer.write(" OR ") }
            Self.folded(SQLRaw("CAST("), column, SQLRaw(" AS TEXT)")).serialize(to: &serializer)
            serializer.write(" LIKE ")
            Self.folded(SQLBind(pattern)).serialize(to: &serializer)
            serializer.write(" ESCAPE ")
            serializer.write(bind: String(Self.escape))
        }
        serializer.write(")")
    }

    /// `parts`, folded for comparison by the serializer's database (``TextSearch``'s rules).
    static func folded(_ parts: any SQLExpression...) -> any SQLExpression {
        SqlFolded(parts: parts)
    }
}

/// An expression folded for a case-insensitive comparison, written for the serializer's
/// database: the function Micro registers on SQLite, `lower()` under ICU's root collation on
/// PostgreSQL, plain `lower()` on another.
private struct SqlFolded: SQLExpression {
    let parts: [any SQLExpression]

    func serialize(to serializer: inout SQLSerializer) {
        switch serializer.dialect.name {
        case "sqlite":
            serializer.write("\(TextFolding.sqliteFunctionName)(")
            for part in parts { part.serialize(to: &serializer) }
            serializer.write(")")
        case "postgresql":
            // translate() after normalize(): ICU writes a final sigma where Swift does not.
            serializer.write("translate(normalize(lower(")
            for part in parts { part.serialize(to: &serializer) }
            serializer.write(#" COLLATE "und-x-icu"), NFC), 'ς', 'σ')"#)
        default:
            serializer.write("lower(")
            for part in parts { part.serialize(to: &serializer) }
            serializer.write(")")
        }
    }
}
