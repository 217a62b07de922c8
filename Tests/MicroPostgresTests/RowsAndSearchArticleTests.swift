import Foundation
import Micro
import MicroPostgres
import MicroTesting
import Testing

extension MicroPostgresTests {
    /// The article "The app's own data", section "Rows and search": its routes as written there,
    /// on SQLite and (when a test server is configured) PostgreSQL.
    @Suite struct RowsAndSearchArticle {
        struct Flag: Codable, Sendable {
            var id: Int64?
            var name: String
            var enabled: Bool
            var note: String?
            var updatedAt: Date
        }

        @Test(arguments: TestDatabaseKind.available)
        func theFlagsToolListsSearchesAddsAndUpdates(_ kind: TestDatabaseKind) async throws {
            try await kind.with { (databases: [Database]) async throws in
                let database = databases[0]
                let app = App(settings: testSettings())
                routes(app, database)
                let client = TestClient(app)
                for name in ["checkout-v2", "Dark mode", "100% rollout", "search_box"] {
                    #expect(try await client.post("/flags", form: ["name": name]).status == .seeOther)
                }
                #expect(try await client.post("/flags/2", form: ["enabled": "on", "note": "Ärger mit Safari"]).location == "/flags/2")
                #expect(try await client.post("/flags/9", form: ["enabled": "on"]).status == .notFound)

                let all = try await list(client, "")
                // In the order of the bytes, as SQLite and the test server's C locale sort.
                #expect(all.map(\.name) == ["100% rollout", "Dark mode", "checkout-v2", "search_box"])
                let dark = try #require(all.first { $0.name == "Dark mode" })
                #expect(dark.id == 2 && dark.enabled && dark.note == "Ärger mit Safari")
                #expect(try await list(client, "DARK").map(\.name) == ["Dark mode"])
                #expect(try await list(client, "ärger").map(\.name) == ["Dark mode"])
                #expect(try await list(client, "%").map(\.name) == ["100% rollout"])
                #expect(try await list(client, "_").map(\.name) == ["search_box"])
                // Cleared: the note is NULL again.
                _ = try await client.post("/flags/2", form: ["note": ""])
                #expect(try await list(client, "ärger").isEmpty)
                #expect(try await list(client, "dark").first?.enabled == false)
                let long = String(repeating: "x", count: TextSearch.maxLength + 1)
                #expect(try await client.get("/flags?q=\(long)").status == .badRequest)
            }
        }

        /// The flags a search for `text` lists.
        private func list(_ client: TestClient, _ text: String) async throws -> [Flag] {
            let query = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let response = try await client.get("/flags?q=\(query)")
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode([Flag].self, from: Data(response.text.utf8))
        }

        /// The article's code.
        private func routes(_ app: App, _ database: Database) {
            database.migrations.add("1 create flags") { sql in
                try await sql.create(table: "flags")
                    .column("id", type: .bigint, .primaryKey)
                    .column("name", type: .text, .notNull)
                    .column("enabled", type: .custom(SQLRaw("BOOLEAN")), .notNull)
                    .column("note", type: .text)
                    .column("updated_at", type: .timestamp, .notNull)
                    .run()
            }
            app.use(database)

            app.get("/flags") { request in
                let page = try await request.database.sql.select().columns("*").from("flags")
                    .where(searching: request.params["q"] ?? "", in: ["name", "note"])
                    .orderBy("name").page(try request.paging(size: 25), decoding: Flag.self, keyDecodingStrategy: .convertFromSnakeCase)
                return page.items                             // JSON; or render it with page.links
            }
            app.post("/flags") { request in
                let flag = Flag(name: request.params["name"] ?? "", enabled: false, note: nil, updatedAt: Date())
                let id = try await request.database.sql.insert(into: "flags")
                    .model(flag, keyEncodingStrategy: .convertToSnakeCase)   // a nil property is left out: the id
                    .returning("id").first(decodingColumn: "id", as: Int64.self)
                try request.redirect(to: "/flags/\(id ?? 0)")
            }
            app.post("/flags/:id") { request in
                guard let id = Int64(request.params["id"] ?? ""),
                    var flag = try await request.database.sql.select().columns("*").from("flags").where("id", .equal, id)
                        .first(decoding: Flag.self, keyDecodingStrategy: .convertFromSnakeCase)
                else { throw HttpError(.notFound, "No such flag.") }
                flag.enabled = request.params["enabled"] == "on"
                flag.note = request.params["note"].flatMap { $0.isEmpty ? nil : $0 }
                flag.updatedAt = Date()
                try await request.database.sql.update("flags")
                    .set(row: flag, except: ["id"], keyEncodingStrategy: .convertToSnakeCase)   // nil sets NULL
                    .where("id", .equal, id).run()
                try request.redirect(to: "/flags/\(id)")
            }
        }

        private func testSettings() -> Settings {
            var settings = Settings()
            settings.environment = .test
            settings.accessLog = false
            settings.views = nil
            return settings
        }
    }
}
