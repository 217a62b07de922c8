import Foundation

/// A note, as the pages and the API show it.
struct Note: Codable, Sendable {
    let id: Int
    let title: String
    let body: String
    /// 1 (the worst) to 5.
    let severity: Int
    /// The username of who wrote it.
    let author: String
    let created: Date

    /// The severities a note may have, as the forms offer them.
    static let severities = (1...5).map { (value: String($0), label: "SEV\($0)" + (labels[$0].map { ": \($0)" } ?? "")) }
    private static let labels = [1: "outage", 2: "degraded", 3: "at risk", 4: "minor", 5: "note"]

    /// The severity a filter names, when it names one.
    static func severity(_ text: String?) -> Int? {
        text.flatMap(Int.init).flatMap { (1...5).contains($0) ? $0 : nil }
    }
}
