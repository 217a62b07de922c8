import Foundation
import Micro
import Testing

/// A feature flag as a small tool keeps it: one property a column, snake_case in the table.
struct Flag: Codable, Equatable, Sendable {
    enum Stage: String, Codable, Sendable { case dev, staging, prod }

    var id: Int64?
    var name: String
    var stage: Stage
    var enabled: Bool
    var rollout: Double
    var hits: Int
    var bytesServed: Int64
    var note: String?
    var updatedAt: Date

    init(
        id: Int64? = nil, name: String, stage: Stage = .prod, enabled: Bool = true, rollout: Double = 0.5, hits: Int = 0,
        bytesServed: Int64 = 0, note: String? = nil, updatedAt: Date = Date(timeIntervalSince1970: 1_700_000_000)
    ) {
        (self.id, self.name, self.stage, self.enabled, self.rollout, self.hits) = (id, name, stage, enabled, rollout, hits)
        (self.bytesServed, self.note, self.updatedAt) = (bytesServed, note, updatedAt)
    }

    /// Adds the table's migration to `database` and runs it: the column types each Swift type
    /// wants on both databases.
    static func table(in database: Database) async throws {
        database.migrations.add("1 create flags") { sql in
            try await sql.create(table: "flags")
                .column("id", type: .bigint, .primaryKey)
                .column("name", type: .text, .notNull)
                .column("stage", type: .text, .notNull)
                .column("enabled", type: .custom(SQLRaw("BOOLEAN")), .notNull)
                .column("rollout", type: .custom(SQLRaw("DOUBLE PRECISION")), .notNull)
                .column("hits", type: .int, .notNull)
                .column("bytes_served", type: .bigint, .notNull)
                .column("note", type: .text)
                .column("updated_at", type: .timestamp, .notNull)
                .run()
        }
        try await database.migrate()
    }

    /// Inserts `flag`; its new id.
    @discardableResult
    static func insert(_ flag: Flag, into database: Database) async throws -> Int64 {
        try #require(
            try await database.sql.insert(into: "flags").model(flag, keyEncodingStrategy: .convertToSnakeCase)
                .returning("id").first(decodingColumn: "id", as: Int64.self))
    }
}
