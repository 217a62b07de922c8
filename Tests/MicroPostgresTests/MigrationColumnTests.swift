import Foundation
import Micro
import MicroPostgres
import MicroTesting
import SQLKit
import Testing

extension MicroPostgresTests {
    /// A column a migration adds is in the next `SELECT *`, on a connection that read the table
    /// before the migration (SQLite's shared connection keeps the schema it read).
    @Suite struct MigrationColumns {
        @Test(arguments: TestDatabaseKind.available)
        func aColumnAMigrationAddsIsInTheNextSelectAll(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 1) { (databases: [Database]) async throws in
                let database = databases[0]
                try await database.migrate([
                    Migration("test 1 gadgets") { sql in
                        try await sql.create(table: "test_gadgets").ifNotExists().column("name", type: .text, .notNull).run()
                    }
                ])
                try await database.sql.insert(into: "test_gadgets").columns("name").values(SQLBind("drill")).run()
                #expect(try await database.sql.select().column("*").from("test_gadgets").all().first?.allColumns == ["name"])
                try await database.migrate([
                    Migration("test 2 gadget colours") { sql in
                        try await sql.alter(table: "test_gadgets").column("colour", type: .text).run()
                    }
                ])
                let row = try #require(try await database.sql.select().column("*").from("test_gadgets").all().first)
                #expect(Set(row.allColumns) == ["name", "colour"])
                #expect(try row.decodeNil(column: "colour"))
            }
        }
    }
}
