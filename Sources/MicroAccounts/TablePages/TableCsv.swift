/// Rows as CSV (RFC 4180): a header of labels, then a line per row, every cell quoted. A cell
/// that a spreadsheet would read as a formula (beginning with `=`, `+`, `-`, `@`, a tab or a
/// carriage return) is made text by a leading `'`, as OWASP advises against CSV injection.
enum TableCsv {
    /// The document: `header`, then `rows`, each a cell per header's column.
    static func document(header: [String], rows: [[String]]) -> String {
        ([header] + rows).map { $0.map(cell).joined(separator: ",") + "\r\n" }.joined()
    }

    static func cell(_ text: String) -> String {
        var text = text
        if let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) { text = "'" + text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
