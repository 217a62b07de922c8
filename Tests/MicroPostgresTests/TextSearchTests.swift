import Foundation
import Micro
import MicroPostgres
import Testing

extension MicroPostgresTests {
    /// `where(searching:in:)`: a case-insensitive "contains", literal and the same on SQLite and
    /// (when a test server is configured) PostgreSQL.
    @Suite struct TextSearches {
        /// The names of the flags whose name or note contain `text`, in order of name.
        private func names(_ database: Database, _ text: String, in columns: [String] = ["name", "note"]) async throws -> [String] {
            try await database.sql.select().columns("*").from("flags").where(searching: text, in: columns).orderBy("id")
                .all(decoding: Flag.self, keyDecodingStrategy: .convertFromSnakeCase).map(\.name)
        }

        /// A flags table holding a row for each of `names`.
        private func flags(_ names: [String], notes: [String: String] = [:], in database: Database) async throws {
            try await Flag.table(in: database)
            for (index, name) in names.enumerated() {
                try await Flag.insert(Flag(name: name, hits: index * 21, note: notes[name]), into: database)
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func wildcardsEscapesAndQuotesAreLiteral(_ kind: TestDatabaseKind) async throws {
            try await kind.with { (databases: [Database]) async throws in
                let database = databases[0]
                let hostile = "'); DROP TABLE flags; --"
                try await flags(["100% done", "100 done", "a_b", "axb", #"C:\temp"#, "C:temp", #"it's "quoted""#, hostile], in: database)
                #expect(try await names(database, "%") == ["100% done"])
                #expect(try await names(database, "0%") == ["100% done"])
                #expect(try await names(database, "_") == ["a_b"])
                #expect(try await names(database, "a_b") == ["a_b"])
                #expect(try await names(database, #"\"#) == [#"C:\temp"#])
                #expect(try await names(database, #":\t"#) == [#"C:\temp"#])
                #expect(try await names(database, "%_%") == [])
                #expect(try await names(database, "'s \"") == [#"it's "quoted""#])
                #expect(try await names(database, hostile) == [hostile])
                #expect(try await names(database, "'; --").isEmpty)
                // The table is still there, with every row.
                #expect(try await names(database, "").count == 8)
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func caseIsIgnoredForAsciiAndOtherScripts(_ kind: TestDatabaseKind) async throws {
            try await kind.with { (databases: [Database]) async throws in
                let database = databases[0]
                try await flags(
                    ["Disk FULL", "Ärger im Büro", "A\u{308}RGER decomposed", "Straße", "STRAẞE", "Strasse", "İstanbul", "Isparta", "ısırgan",
                     "ΟΔΟΣ", "Café", "cafe\u{301} decomposed"],
                    in: database)
                #expect(try await names(database, "disk full") == ["Disk FULL"])
                #expect(try await names(database, "DISK") == ["Disk FULL"])
                // Composed or decomposed, stored or searched: NFC on both sides.
                #expect(try await names(database, "är") == ["Ärger im Büro", "A\u{308}RGER decomposed"])
                #expect(try await names(database, "A\u{308}R") == ["Ärger im Büro", "A\u{308}RGER decomposed"])
                #expect(try await names(database, "BÜRO") == ["Ärger im Büro"])
                #expect(try await names(database, "café") == ["Café", "cafe\u{301} decomposed"])
                #expect(try await names(database, "e\u{301}") == ["Café", "cafe\u{301} decomposed"])
                // ß is lowercase already and ẞ lowercases to it; neither is "ss".
                #expect(try await names(database, "ß") == ["Straße", "STRAẞE"])
                #expect(try await names(database, "STRAẞE") == ["Straße", "STRAẞE"])
                #expect(try await names(database, "ss") == ["Strasse"])
                // Unicode's default mapping, not Turkish: İ is i with a dot above, I is i, ı is itself.
                #expect(try await names(database, "İ") == ["İstanbul"])
                #expect(try await names(database, "is") == ["Disk FULL", "Isparta"])
                #expect(try await names(database, "i\u{307}s") == ["İstanbul"])
                #expect(try await names(database, "ı") == ["ısırgan"])
                // A final sigma is a sigma.
                #expect(try await names(database, "οδοσ") == ["ΟΔΟΣ"])
                #expect(try await names(database, "ΟΔΟς") == ["ΟΔΟΣ"])
                #expect(try await names(database, "οσ") == ["ΟΔΟΣ"])
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func combiningMarksAndBidiControlsAreLiteralCharacters(_ kind: TestDatabaseKind) async throws {
            try await kind.with { (databases: [Database]) async throws in
                let database = databases[0]
                let overridden = "invoice\u{202E}fdp.exe"
                try await flags([overridden, "invoicefdp.exe", "Zalgo z\u{336}\u{35B}a", "plain"], in: database)
                #expect(try await names(database, "\u{202E}") == [overridden])
                #expect(try await names(database, "\u{202E}FDP") == [overridden])
                #expect(try await names(database, "z\u{336}\u{35B}") == ["Zalgo z\u{336}\u{35B}a"])
                #expect(try await names(database, "\u{35B}A") == ["Zalgo z\u{336}\u{35B}a"])
                #expect(try await names(database, "invoicefdp") == ["invoicefdp.exe"])
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func severalColumnsNullsNumbersAndOtherConditions(_ kind: TestDatabaseKind) async throws {
            try await kind.with { (databases: [Database]) async throws in
                let database = databases[0]
                try await flags(["alpha", "beta", "gamma"], notes: ["alpha": "alpha one", "beta": "replaces ALPHA"], in: database)
                // A row matches when any column does; gamma's NULL note matches nothing, and no error.
                #expect(try await names(database, "alpha") == ["alpha", "beta"])
                #expect(try await names(database, "replaces", in: ["note"]) == ["beta"])
                #expect(try await names(database, "GAMMA") == ["gamma"])
                // A number column is searched as its text (hits: 0, 21, 42).
                #expect(try await names(database, "42", in: ["name", "hits"]) == ["gamma"])
                // The search's OR stays inside its parentheses: the other condition holds for every row.
                let filtered = try await database.sql.select().columns("*").from("flags").where("name", .notEqual, "alpha")
                    .where(searching: "ALPHA", in: ["name", "note"]).where("hits", .lessThan, 100)
                    .all(decoding: Flag.self, keyDecodingStrategy: .convertFromSnakeCase)
                #expect(filtered.map(\.name) == ["beta"])
                // In a transaction too, which has a connection of its own.
                let inTransaction = try await database.transaction { sql in
                    try await sql.select().column("name").from("flags").where(searching: "ALPHA", in: ["name"]).all(decodingColumn: "name", as: String.self)
                }
                #expect(inTransaction == ["alpha"])
                // No column to search: no row holds the text.
                #expect(try await names(database, "alpha", in: []) == [])
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func anEmptyTextMatchesEveryRowAndATooLongOneIsABadRequest(_ kind: TestDatabaseKind) async throws {
            try await kind.with { (databases: [Database]) async throws in
                let database = databases[0]
                try await flags(["one", "two", "  spaced  "], in: database)
                #expect(try await names(database, "") == ["one", "two", "  spaced  "])
                #expect(try await names(database, " \t\n") == ["one", "two", "  spaced  "])
                #expect(try await names(database, "  spaced  ") == ["  spaced  "])
                #expect(try await names(database, String(repeating: "o", count: TextSearch.maxLength)) == [])
                for refused in [
                    String(repeating: "o", count: TextSearch.maxLength + 1),
                    // One character to a person, 201 Unicode scalars to the database.
                    "x" + String(repeating: "\u{301}", count: TextSearch.maxLength),
                    "a\0b",
                ] {
                    do {
                        _ = try await names(database, refused)
                        Issue.record("searched for \(refused.unicodeScalars.count) scalars")
                    } catch let error as HttpError {
                        #expect(error.status == .badRequest)
                    }
                }
            }
        }
    }
}
