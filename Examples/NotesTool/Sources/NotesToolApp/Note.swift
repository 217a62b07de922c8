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
}
