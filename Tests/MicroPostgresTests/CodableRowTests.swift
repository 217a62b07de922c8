import Foundation
import Micro
import MicroPostgres
import Testing

extension MicroPostgresTests {
    /// `Codable` rows through sql-kit and Micro's `set(row:except:)`, each test on SQLite and
    /// (when a test server is configured) PostgreSQL.
    @Suite struct CodableRows {
        @Test(arguments: TestDatabaseKind.available)
        func aRowInsertedFromAValueReadsBackTheSameWithItsNewId(_ kind: TestDatabaseKind) async throws {
            try await kind.with { (databases: [Database]) async throws in
                let database = databases[0]
                try await Flag.table(in: database)
                // Values at the edges of their types: a Double a 32-bit float would round, a
                // 64-bit integer beyond 32 bits, a time with a fraction of a second.
                let flag = Flag(
                    name: "checkout-v2", stage: .staging, enabled: false, rollout: 0.1, hits: 2_147_483_647,
                    bytesServed: 9_007_199_254_740_993, note: "first", updatedAt: Date(timeIntervalSince1970: 1_700_000_000.25))
                let id = try await Flag.insert(flag, into: database)
                let second = try await Flag.insert(Flag(name: "search"), into: database)
                #expect(second == id + 1)

                let read = try #require(
                    try await database.sql.select().columns("*").from("flags").where("id", .equal, id)
                        .first(decoding: Flag.self, keyDecodingStrategy: .convertFromSnakeCase))
                var expected = flag
                expected.id = id
                #expect(read == expected)

                // RETURNING the whole row gives the value as stored, in one statement.
                let returned = try #require(
                    try await database.sql.insert(into: "flags").model(Flag(name: "beta", note: nil), keyEncodingStrategy: .convertToSnakeCase)
                        .returning("*").first(decoding: Flag.self, keyDecodingStrategy: .convertFromSnakeCase))
                #expect(returned.id == second + 1 && returned.name == "beta" && returned.note == nil)
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func boolsDatesAndOptionalsCompareAndSortAlikeOnBothDatabases(_ kind: TestDatabaseKind) async throws {
            try await kind.with { (databases: [Database]) async throws in
                let database = databases[0]
                try await Flag.table(in: database)
                let start = Date(timeIntervalSince1970: 1_700_000_000)
                for (index, name) in ["a", "b", "c", "d"].enumerated() {
                    try await Flag.insert(
                        Flag(name: name, enabled: index.isMultiple(of: 2), note: index == 3 ? nil : "n\(index)",
                            updatedAt: start + Double(index) * 60.5),
                        into: database)
                }
                let select = { database.sql.select().column("name").from("flags") }
                let enabled = try await select().where("enabled", .equal, true).orderBy("name").all(decodingColumn: "name", as: String.self)
                #expect(enabled == ["a", "c"])
                let recent = try await select().where("updated_at", .greaterThan, start + 60).orderBy("updated_at", .descending)
                    .all(decodingColumn: "name", as: String.self)
                #expect(recent == ["d", "c", "b"])
                let withoutNote = try await select().where("note", .is, SQLLiteral.null).all(decodingColumn: "name", as: String.self)
                #expect(withoutNote == ["d"])
                let stage = try await select().where("stage", .equal, Flag.Stage.prod).all(decodingColumn: "name", as: String.self)
                #expect(stage.count == 4)
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func anUpdateFromAValueWritesEveryColumnNilAsNullAndLeavesTheKey(_ kind: TestDatabaseKind) async throws {
            try await kind.with { (databases: [Database]) async throws in
                let database = databases[0]
                try await Flag.table(in: database)
                let id = try await Flag.insert(Flag(name: "dark-mode", note: "ask design"), into: database)
                let other = try await Flag.insert(Flag(name: "untouched", note: "stays"), into: database)
                let read = { (id: Int64) in
                    try await database.sql.select().columns("*").from("flags").where("id", .equal, id)
                        .first(decoding: Flag.self, keyDecodingStrategy: .convertFromSnakeCase)
                }
                var flag = try #require(try await read(id))
                flag.enabled = false
                flag.note = nil
                flag.stage = .dev
                flag.bytesServed = Int64.max
                flag.updatedAt = Date(timeIntervalSince1970: 1_800_000_000.5)
                // A key in the value that names another row is not written: `except` leaves it.
                var sent = flag
                sent.id = other
                try await database.sql.update("flags").set(row: sent, except: ["id"], keyEncodingStrategy: .convertToSnakeCase)
                    .where("id", .equal, id).run()
                #expect(try await read(id) == flag)
                #expect(try await read(other)?.note == "stays")

                // An update that names no row changes none, and says so through RETURNING.
                let missing = try await database.sql.update("flags").set(row: flag, except: ["id"], keyEncodingStrategy: .convertToSnakeCase)
                    .where("id", .equal, Int64(999)).returning("id").first()
                #expect(missing == nil)
            }
        }
    }
}
