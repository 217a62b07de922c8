import Foundation

/// A note, as the pages and the API show it.
public struct Note: Codable, Sendable {
    public let id: Int
    public let title: String
    public let body: String
    /// 1 (the worst) to 5.
    public let severity: Int
    /// The username of who wrote it.
    public let author: String
    public let created: Date
}
