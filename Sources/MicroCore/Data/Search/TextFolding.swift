import Foundation
import SQLiteKit

/// How ``TextSearch`` folds text on SQLite, in Swift: a function registered on every connection
/// Micro opens, since SQLite's own `lower()` and `LIKE` fold ASCII alone. PostgreSQL folds the
/// same way in SQL (``TextSearch``).
enum TextFolding {
    /// The SQL name of the function, on Micro's SQLite connections.
    static let sqliteFunctionName = "micro_fold"

    /// `text` lowercased by Unicode's default mapping, made NFC, with every `ς` made `σ`: what
    /// ICU's root lowercase gives on PostgreSQL, less its context-dependent final sigma.
    static func fold(_ text: String) -> String {
        let folded = text.lowercased().precomposedStringWithCanonicalMapping
        // By scalar: a sigma with a combining mark after it is still folded, as PostgreSQL does.
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: folded.unicodeScalars.lazy.map { $0 == "ς" ? "σ" : $0 })
        return String(scalars)
    }

    /// The function SQLite calls: text folded, NULL (or any other value, which ``TextSearch``
    /// casts to text first) as NULL.
    static let sqliteFunction = SQLiteCustomFunction(sqliteFunctionName, argumentCount: 1, pure: true) { arguments in
        guard case .text(let text) = arguments.first else { return nil }
        return fold(text)
    }
}
