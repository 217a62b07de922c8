import Foundation
import Micro
import MicroTestSupport
import MicroTesting
import Testing

extension MicroPostgresTests {
    /// A table administered by one declaration (``TablePages``): list, search, sort, filters,
    /// pages, forms with the row's rules, roles per action, app events, CSV, archiving and the
    /// JSON of the same rows, on SQLite and (when a test server is configured) PostgreSQL.
    @Suite struct TablePagesTests {
        enum Kind: String, Codable, Sendable, CaseIterable { case laptop, scope, projector }

        struct Item: Codable, Sendable, Validatable {
            var id: Int?
            var name: String
            var kind: Kind
            var location: String?
            var stock: Int
            var bookable: Bool
            var archived = false
            var due: Date?

            func validate(into errors: inout FieldErrors) {
                errors.check("name", name, .notBlank, .length(max: 80))
                if stock < 0 { errors.add("stock", "The stock cannot be below zero.") }
            }
        }

        private static let json: HttpHeaders = ["Accept": "application/json"]
        private static var decoder: JSONDecoder {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return decoder
        }

        /// An app with `/items` (editors add and change, admins delete) over `database`; `ann` is
        /// an admin and an editor, `ed` an editor, `vi` a viewer, `out` holds no role.
        private func makeApp(_ database: Database, folder: TemporaryFolder, archiving: Bool = false, templates: [String: String] = [:])
            async throws -> (App, Accounts)
        {
            try folder.write("views/layout.mustache", "<main>{{{yield}}}</main>")
            for (name, text) in templates { try folder.write("views/\(name).mustache", text) }
            let app = isolatedApp { $0.views = folder.file("views") }
            let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
            try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann", roles: ["admin", "editor", "viewer"])
            try users.save(username: "ed", passwordHash: TestHashes.secret123, name: nil, roles: ["editor", "viewer"])
            try users.save(username: "vi", passwordHash: TestHashes.secret123, name: nil, roles: ["viewer"])
            try users.save(username: "out", passwordHash: TestHashes.secret123, name: nil)
            var authentication = Authentication(users: users)
            authentication.hasher = PasswordHasher(threads: 1)
            app.use(authentication)
            database.migrations.add("1 create items") { sql in
                try await sql.create(table: "items")
                    .column("id", type: .bigint, .primaryKey)
                    .column("name", type: .text, .notNull)
                    .column("kind", type: .text, .notNull)
                    .column("location", type: .text)
                    .column("stock", type: .bigint, .notNull)
                    .column("bookable", type: .custom(SQLRaw("BOOLEAN")), .notNull)
                    .column("archived", type: .custom(SQLRaw("BOOLEAN")), .notNull, .default(false))
                    .column("due", type: .timestamp)
                    .run()
            }
            app.use(database)
            let accounts = Accounts(database: database)
            app.use(accounts)
            var items = TablePages(Item.self, table: "items", title: "Items")
            items.listed = ["name", "kind", "location", "stock"]
            items.searched = ["name", "location"]
            items.sortable = ["name", "stock"]
            items.filtered = ["kind", "bookable"]
            items.roles = TableRoles(view: ["viewer"], create: ["editor"], edit: ["editor"], delete: ["admin"])
            items.pageSize = 10
            if archiving { items.archived = "archived" }
            items.check = { item, before, request in
                if item.name == "taken" { try request.refuse(field: "name", "An item has this name already.") }
                if let before, before.kind != item.kind, item.kind == .projector { try request.refuse(field: "kind", "Nothing becomes a projector.") }
            }
            app.tablePages("/items", items)
            return (app, accounts)
        }

        private func client(_ app: App, _ username: String) async throws -> TestClient {
            let client = TestClient(app)
            let password = username == "ann" ? "ann-password" : "secret123"
            #expect(try await client.signIn(username, password).status == .seeOther)
            return client
        }

        private func items(_ response: TestResponse) throws -> [Item] {
            try Self.decoder.decode([Item].self, from: Data(response.text.utf8))
        }

        @Test(arguments: TestDatabaseKind.available)
        func rowsAreAddedListedSearchedSortedFilteredAndPaged(_ kind: TestDatabaseKind) async throws {
            try await kind.with { databases async throws in
                let folder = try TemporaryFolder()
                defer { folder.remove() }
                let (app, _) = try await makeApp(databases[0], folder: folder)
                let ed = try await client(app, "ed")
                for index in 1...23 {
                    let kind = [Kind.laptop, .scope, .projector][index % 3]
                    let answer = try await ed.post("/items", form: [
                        "name": "\(kind.rawValue) \(String(format: "%02d", index))", "kind": kind.rawValue,
                        "location": index == 7 ? "Lab 100% dry_room" : "Lab \(index % 2)", "stock": "\(index)", "bookable": index % 2 == 0 ? "on" : "",
                    ])
                    #expect(answer.status == .seeOther && answer.location == "/items/\(index)", "\(answer.status) \(answer.text.prefix(600))")
                }
                // Paged by ten, by name then key; the next page in the Link header for a script.
                let first = try await ed.get("/items", headers: Self.json)
                #expect(try items(first).count == 10 && first.headers.first(name: "Link") == "</items?page=2>; rel=\"next\"")
                #expect(try items(try await ed.get("/items?page=3", headers: Self.json)).count == 3)
                #expect(try items(first).first?.name == "laptop 03")
                // Searched whatever the case, with % and _ taken literally.
                #expect(try items(try await ed.get("/items?q=SCOPE%201", headers: Self.json)).map(\.name) == ["scope 10", "scope 13", "scope 16", "scope 19"])
                #expect(try items(try await ed.get("/items?q=100%25", headers: Self.json)).map(\.id) == [7])
                #expect(try items(try await ed.get("/items?q=y_r", headers: Self.json)).map(\.id) == [7])
                #expect(try items(try await ed.get("/items?q=lab_1", headers: Self.json)).isEmpty)
                // Filtered by value, sorted as asked; an unknown sort is the default order.
                let scopes = try items(try await ed.get("/items?kind=scope&sort=stock&order=desc", headers: Self.json))
                #expect(scopes.map(\.stock) == [22, 19, 16, 13, 10, 7, 4, 1])
                #expect(try items(try await ed.get("/items?kind=scope&bookable=yes", headers: Self.json)).map(\.stock) == [4, 10, 16, 22])
                #expect(try items(try await ed.get("/items?sort=password_hash", headers: Self.json)).first?.name == "laptop 03")
                #expect(try items(try await ed.get("/items?kind=nothing", headers: Self.json)).isEmpty)
                // The page: columns, sort links, a link per row, the filters, and what was asked kept.
                let page = try await ed.get("/items?kind=laptop&q=lap")
                #expect(page.status == .ok)
                // Sorted by name already: its link turns the order round.
                #expect(page.text.contains(#"<a href="/items?kind=laptop&amp;q=lap&amp;order=desc&amp;sort=name">Name</a> <span aria-label="sorted ascending">"#))
                #expect(page.text.contains(#"<a href="/items?kind=laptop&amp;q=lap&amp;sort=stock">Stock</a>"#))
                #expect(page.text.contains(#"<a href="/items/3">Open</a>"#) && !page.text.contains(#"href="/items/1">"#))
                #expect(page.text.contains(#"<option value="laptop" selected>laptop</option>"#))
                #expect(page.text.contains(#"href="/items/new""#) && page.text.contains(#"href="/items/export.csv?kind=laptop&amp;q=lap""#))
                // Bounded: a search or a filter longer than any value is a 400, and a page beyond any is empty.
                #expect(try await ed.get("/items?q=" + String(repeating: "x", count: TextSearch.maxLength + 1)).status == .badRequest)
                #expect(try await ed.get("/items?kind=" + String(repeating: "x", count: 201)).status == .badRequest)
                #expect(try items(try await ed.get("/items?page=999999999999", headers: Self.json)).isEmpty)
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func aRefusedFormComesBackWithItsMessagesBesideTheFields(_ kind: TestDatabaseKind) async throws {
            try await kind.with { databases async throws in
                let folder = try TemporaryFolder()
                defer { folder.remove() }
                let (app, accounts) = try await makeApp(databases[0], folder: folder)
                let ed = try await client(app, "ed")
                let blank = try await ed.post("/items", form: ["name": " ", "kind": "scope", "location": "<b>Lab</b>", "stock": "-2"])
                #expect(blank.status == .unprocessableEntity)
                #expect(blank.text.contains(#"<span class="error" id="error-name">"#) && blank.text.contains("The stock cannot be below zero."))
                #expect(blank.text.contains(#"value="&lt;b&gt;Lab&lt;/b&gt;""#) && blank.text.contains(#"<option value="scope" selected>"#))
                // The declaration's own check, through request.refuse(field:).
                let taken = try await ed.post("/items", form: ["name": "taken", "kind": "scope", "stock": "1"])
                #expect(taken.status == .unprocessableEntity && taken.text.contains("An item has this name already."))
                // Not a number, not a choice: a 400 with the form again, never a 500.
                let typed = try await ed.post("/items", form: ["name": "x", "kind": "scope", "stock": "many"])
                #expect(typed.status == .badRequest && typed.text.contains(#"id="error-stock""#))
                #expect(try await ed.post("/items", form: ["name": "x", "kind": "toaster", "stock": "1"]).status == .badRequest)
                // A script gets JSON, naming the fields.
                let scripted = try await ed.post("/items", json: Item(name: "", kind: .scope, stock: 1, bookable: false))
                #expect(scripted.status == .unprocessableEntity && scripted.text.contains(#""name""#))
                #expect(try await accounts.appEvents.events(kind: nil, subject: nil, offset: 0, limit: 10).isEmpty)
                // A change refused keeps the row as it was.
                _ = try await ed.post("/items", form: ["name": "Scope A", "kind": "scope", "stock": "2"])
                let edit = try await ed.get("/items/1/edit")
                #expect(edit.text.contains(#"value="Scope A""#) && edit.text.contains(#"<option value="scope" selected>"#))
                let refused = try await ed.post("/items/1", form: ["name": "Scope A", "kind": "projector", "stock": "2"])
                #expect(refused.status == .unprocessableEntity && refused.text.contains("Nothing becomes a projector."))
                #expect(try Self.decoder.decode(Item.self, from: Data(try await ed.get("/items/1", headers: Self.json).text.utf8)).kind == .scope)
                // A date typed as a day, shown in ISO 8601, and sent back as shown, unchanged.
                #expect(try await ed.post("/items/1", form: ["name": "Scope A", "kind": "scope", "stock": "2", "due": "2026-03-01"]).status == .seeOther)
                let dated = try await ed.get("/items/1/edit")
                #expect(dated.text.contains(#"name="due" value="2026-03-01T00:00:00Z""#))
                #expect(try await ed.post("/items/1", form: ["name": "Scope A", "kind": "scope", "stock": "2", "due": "2026-03-01T00:00:00Z"]).status == .seeOther)
                let changes = try await accounts.appEvents.events(kind: "items_changed", subject: nil, offset: 0, limit: 10)
                #expect(changes.map(\.detail) == ["due: – → 2026-03-01T00:00:00Z"])
                #expect(try await ed.post("/items/1", form: ["name": "Scope A", "kind": "scope", "stock": "2", "due": "March"]).status == .badRequest)
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func everyChangeIsAnAppEventWithBeforeAndAfter(_ kind: TestDatabaseKind) async throws {
            try await kind.with { databases async throws in
                let folder = try TemporaryFolder()
                defer { folder.remove() }
                let (app, accounts) = try await makeApp(databases[0], folder: folder)
                let ann = try await client(app, "ann")
                _ = try await ann.post("/items", form: ["name": "Scope A", "kind": "scope", "stock": "2", "bookable": "on"])
                // A client's id is no key: the table gives it, and a change keeps it.
                _ = try await ann.post("/items", form: ["id": "1", "name": "Scope B", "kind": "scope", "stock": "1"])
                #expect(try await ann.post("/items/1", form: ["id": "2", "name": "Scope A", "kind": "scope", "location": "Lab 2", "stock": "3", "bookable": "on"]).location == "/items/1")
                #expect(try await ann.post("/items/2/delete", form: [:]).location == "/items")
                let events = try await accounts.appEvents.events(kind: nil, subject: nil, offset: 0, limit: 10)
                try #require(events.map(\.kind) == ["items_deleted", "items_changed", "items_created", "items_created"])
                #expect(events.allSatisfy { $0.username == "ann" })
                #expect(events[1].subject == "item 1" && events[1].detail == "location: – → Lab 2; stock: 2 → 3")
                #expect(events[3].detail == "id: 1; name: Scope A; kind: scope; location: –; stock: 2; bookable: yes; archived: no; due: –")
                #expect(events[0].subject == "item 2")
                #expect(try await ann.get("/items/2").status == .notFound)
                // A change that changes nothing is no event.
                _ = try await ann.post("/items/1", form: ["name": "Scope A", "kind": "scope", "location": "Lab 2", "stock": "3", "bookable": "on"])
                #expect(try await accounts.appEvents.events(kind: nil, subject: nil, offset: 0, limit: 10).count == 4)
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func eachActionIsItsRolesAndAMissingRowIsNotFound(_ kind: TestDatabaseKind) async throws {
            try await kind.with { databases async throws in
                let folder = try TemporaryFolder()
                defer { folder.remove() }
                let (app, _) = try await makeApp(databases[0], folder: folder)
                let ed = try await client(app, "ed")
                _ = try await ed.post("/items", form: ["name": "Scope A", "kind": "scope", "stock": "2"])
                let vi = try await client(app, "vi")
                let viewersList = try await vi.get("/items")
                #expect(viewersList.status == .ok && !viewersList.text.contains("/items/new"))
                let row = try await vi.get("/items/1")
                #expect(row.status == .ok && !row.text.contains("/items/1/edit") && !row.text.contains("/items/1/delete"))
                for (status, path) in [(HttpStatus.forbidden, "/items/new"), (.forbidden, "/items/1/edit")] { #expect(try await vi.get(path).status == status) }
                #expect(try await vi.post("/items", form: ["name": "x", "kind": "scope", "stock": "1"]).status == .forbidden)
                #expect(try await vi.post("/items/1", form: ["name": "x", "kind": "scope", "stock": "1"]).status == .forbidden)
                #expect(try await ed.post("/items/1/delete", form: [:]).status == .forbidden)
                // Without the view role: the list is refused, a row is as missing as one that is.
                let out = try await client(app, "out")
                #expect(try await out.get("/items").status == .forbidden)
                #expect(try await out.get("/items/export.csv").status == .forbidden)
                for path in ["/items/1", "/items/1/edit"] { #expect(try await out.get(path).status == .notFound) }
                #expect(try await out.post("/items/1/delete", form: [:]).status == .notFound)
                for path in ["/items/2", "/items/0", "/items/-1", "/items/abc", "/items/99999999999999999999", "/items/2/edit"] {
                    #expect(try await ed.get(path).status == .notFound, "\(path)")
                }
                #expect(try await ed.post("/items/2", form: ["name": "x", "kind": "scope", "stock": "1"]).status == .notFound)
                // A script's token: JSON without asking; a read-only one changes nothing.
                let reader = try await ed.makeApiToken(scopes: ["read"], password: "secret123")
                let script = TestClient(app)
                let listed = try await script.get("/items", headers: ["Authorization": "Bearer \(reader)"])
                #expect(try listed.status == .ok && items(listed).map(\.name) == ["Scope A"])
                let write = try await script.post("/items", json: Item(name: "x", kind: .scope, stock: 1, bookable: false), headers: ["Authorization": "Bearer \(reader)"])
                #expect(write.status == .forbidden)
                let writer = try await ed.makeApiToken(name: "writer", scopes: ["write"], password: "secret123")
                let added = try await script.post("/items", json: Item(name: "By script", kind: .laptop, stock: 1, bookable: true), headers: ["Authorization": "Bearer \(writer)"])
                #expect(added.status == .created && added.headers.first(name: "Location") == "/items/2", "\(added.status) \(added.text)")
                let changed = try await script.request(
                    .PUT, "/items/2", headers: ["Authorization": "Bearer \(writer)", "Content-Type": "application/json"],
                    body: Array(#"{"name": "Renamed", "kind": "scope", "stock": 4, "bookable": false, "archived": false}"#.utf8))
                #expect(try changed.status == .ok && Self.decoder.decode(Item.self, from: Data(changed.text.utf8)).name == "Renamed")
                #expect(try await script.delete("/items/2", headers: ["Authorization": "Bearer \(writer)"]).status == .forbidden)
                // Signed out: the sign-in, then back.
                #expect(try await TestClient(app).get("/items").location == "/signin")
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func csvHoldsTheListsRowsAndFormulasStayText(_ kind: TestDatabaseKind) async throws {
            try await kind.with { databases async throws in
                let folder = try TemporaryFolder()
                defer { folder.remove() }
                let (app, _) = try await makeApp(databases[0], folder: folder)
                let ed = try await client(app, "ed")
                for name in ["=HYPERLINK(\"http://evil\")", "+1", "-2", "@SUM(A1)", "Scope \"B\""] {
                    #expect(try await ed.post("/items", form: ["name": name, "kind": "scope", "stock": "1"]).status == .seeOther)
                }
                _ = try await ed.post("/items", form: ["name": "Laptop", "kind": "laptop", "stock": "1"])
                let csv = try await ed.get("/items/export.csv?kind=scope")
                #expect(csv.headers.first(name: "Content-Type") == "text/csv; charset=utf-8")
                #expect(csv.headers.first(name: "Content-Disposition") == "attachment; filename=\"items.csv\"")
                let lines = csv.text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
                #expect(lines.first == #""id","name","kind","location","stock","bookable","archived","due""#)
                #expect(lines.dropFirst().map { $0.components(separatedBy: ",")[1] } == [
                    #""'+1""#, #""'-2""#, #""'=HYPERLINK(""http://evil"")""#, #""'@SUM(A1)""#, #""Scope ""B""""#,
                ])
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func archivingHidesARowUntilAsked(_ kind: TestDatabaseKind) async throws {
            try await kind.with { databases async throws in
                let folder = try TemporaryFolder()
                defer { folder.remove() }
                let (app, accounts) = try await makeApp(databases[0], folder: folder, archiving: true)
                let ann = try await client(app, "ann")
                _ = try await ann.post("/items", form: ["name": "Scope A", "kind": "scope", "stock": "2"])
                _ = try await ann.post("/items", form: ["name": "Scope B", "kind": "scope", "stock": "2"])
                #expect(try await ann.get("/items/1").text.contains(">Archive</button>"))
                #expect(try await ann.post("/items/1/delete", form: [:]).location == "/items")
                #expect(try items(try await ann.get("/items", headers: Self.json)).map(\.name) == ["Scope B"])
                #expect(try items(try await ann.get("/items?archived=yes", headers: Self.json)).map(\.name) == ["Scope A", "Scope B"])
                #expect(try await ann.get("/items/1").text.contains("Archived."))
                // A change leaves it archived: the form has no such field.
                _ = try await ann.post("/items/1", form: ["name": "Scope A2", "kind": "scope", "stock": "2", "archived": "false"])
                #expect(try items(try await ann.get("/items", headers: Self.json)).map(\.name) == ["Scope B"])
                #expect(try await accounts.appEvents.events(kind: "items_archived", subject: nil, offset: 0, limit: 10).map(\.subject) == ["item 1"])
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func hostileTextIsKeptAsSentAndEscapedAndAnAppsTemplateWins(_ kind: TestDatabaseKind) async throws {
            try await kind.with { databases async throws in
                let folder = try TemporaryFolder()
                defer { folder.remove() }
                let (app, _) = try await makeApp(
                    databases[0], folder: folder, templates: ["items/show": "<h1 class=\"mine\">{{title}}</h1>{{#fields}}<p>{{text}}</p>{{/fields}}"])
                let ed = try await client(app, "ed")
                let hostile = "e\u{301}\u{202E}gnp.exe<script>"
                _ = try await ed.post("/items", form: ["name": hostile, "kind": "scope", "stock": "1"])
                let json = try Self.decoder.decode(Item.self, from: Data(try await ed.get("/items/1", headers: Self.json).text.utf8))
                #expect(json.name == hostile)
                let page = try await ed.get("/items/1")
                #expect(page.text.contains(#"<h1 class="mine">item 1</h1>"#) && page.text.contains("e\u{301}\u{202E}gnp.exe&lt;script&gt;"))
                let list = try await ed.get("/items")
                #expect(!list.text.contains("<script>"))
                // Invalid UTF-8 in a form is refused, never stored.
                let invalid = try await ed.request(
                    .POST, "/items", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array("name=%FF%FE&kind=scope&stock=1".utf8))
                #expect(invalid.status.code >= 400 && invalid.status.code < 500)
            }
        }

        @Test func aDeclarationThatDoesNotFitItsRowStopsTheAppNamingIt() async throws {
            struct Nested: Codable, Sendable { var id: Int?; var tags: [String] }
            struct NoKey: Codable, Sendable { var name: String }
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            for (declare, expected) in [
                ({ (app: App) in app.tablePages("/n", TablePages(Nested.self, table: "n", title: "N")) }, "not Array<String> (field 'tags')"),
                ({ (app: App) in app.tablePages("/k", TablePages(NoKey.self, table: "k", title: "K")) }, "no optional integer key 'id'"),
                ({ (app: App) in var pages = TablePages(Item.self, table: "items", title: "I"); pages.searched = ["stock"]; app.tablePages("/i", pages) }, "only text is"),
                ({ (app: App) in var pages = TablePages(Item.self, table: "items", title: "I"); pages.sortable = ["colour"]; app.tablePages("/i", pages) }, "no property 'colour'"),
                ({ (app: App) in app.tablePages("/i", TablePages(Item.self, table: "items; DROP", title: "I")) }, "lowercase ASCII"),
            ] as [((App) -> Void, String)] {
                let app = isolatedApp { $0.views = nil }
                declare(app)
                var problems = ""
                do { _ = try await TestClient(app).get("/") } catch let error as ConfigurationError { problems = error.message }
                #expect(problems.contains("TablePagesTests.swift") && problems.contains(expected), "\(problems)")
            }
            // Every change is an app event: without the account pages' record, the app does not start.
            let app = isolatedApp { $0.views = nil }
            app.tablePages("/items", TablePages(Item.self, table: "items", title: "Items"))
            var problems = ""
            do { _ = try await TestClient(app).get("/") } catch let error as ConfigurationError { problems = error.message }
            #expect(problems.contains("Table pages record every change as an app event: app.use(Accounts(...))"), "\(problems)")
        }
    }
}
