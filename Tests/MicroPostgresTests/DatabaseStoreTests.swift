import Foundation
import Micro
import MicroPostgres
import MicroTesting
import Testing

extension MicroPostgresTests {
    /// The data layer and the stores written once for both databases, each test run against
    /// SQLite and (when a test server is configured) PostgreSQL.
    @Suite struct DatabaseStores {
        private let throttle = SignInThrottle()

        @Test(arguments: TestDatabaseKind.available)
        func failedSignInsCountOnEveryInstanceAndAWindowThatPassedBeginsAnew(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 2) { (databases: [Database]) async throws in
                let one = try await DatabaseSignInThrottleStore(databases[0])
                let two = try await DatabaseSignInThrottleStore(databases[1])
                // One key for both: a name digests alike on every instance.
                #expect(one.digestKey == two.digestKey)
                let ann = throttle.key(username: "ann"), address = throttle.key(address: "192.0.2.7")
                var counts = SignInFailures()
                for index in 0..<4 {
                    counts = try await (index.isMultiple(of: 2) ? one : two)
                        .recordFailure(username: ann, address: address, window: 900, now: 1000 + Int64(index))
                }
                #expect(counts.username == .init(windowStart: 1000, failures: 4))
                #expect(counts.address == .init(windowStart: 1000, failures: 4))
                #expect(try await two.failures(username: ann, address: nil, window: 900, now: 1100).username?.failures == 4)
                // A success clears the name, not the address.
                try await two.clear(username: ann)
                let after = try await one.failures(username: ann, address: address, window: 900, now: 1100)
                #expect(after.username == nil && after.address?.failures == 4)
                // Past the window: nothing live, and the next failure begins a new window.
                #expect(try await one.failures(username: ann, address: address, window: 900, now: 1900) == SignInFailures())
                let fresh = try await one.recordFailure(username: ann, address: address, window: 900, now: 1950)
                #expect(fresh.username == .init(windowStart: 1950, failures: 1))
                #expect(fresh.address == .init(windowStart: 1950, failures: 1))
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func migrationsRunOnceInOrderAndAFailureNamesTheMigration(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 2) { (databases: [Database]) async throws in
                for database in databases {
                    database.migrations.add("1 create items") { sql in
                        try await sql.create(table: "items").column("id", type: .bigint, .primaryKey).column("name", type: .text, .notNull).run()
                    }
                    database.migrations.add("2 first item") { sql in
                        try await sql.insert(into: "items").columns("name").values(SQLBind("first")).run()
                    }
                }
                // The second instance finds them recorded: the table is not made, nor the row added, twice.
                try await databases[0].migrate()
                try await databases[1].migrate()
                let names = try await databases[0].sql.select().column("name").from("items").all(decoding: Item.self)
                #expect(names.map(\.name) == ["first"])
                let recorded = try await databases[1].sql.select().column("name").from("micro_migrations")
                    .orderBy("name").all(decoding: Item.self)
                #expect(recorded.map(\.name) == ["1 create items", "2 first item"])

                databases[0].migrations.add("3 broken") { sql in
                    try await sql.insert(into: "items").columns("name").values(SQLBind("half")).run()
                    try await sql.raw("SELECT * FROM no_such_table").run()
                }
                let app = App(settings: testSettings())
                app.use(databases[0])
                do {
                    _ = try await TestClient(app).get("/")
                    Issue.record("the app started")
                } catch let error as ConfigurationError {
                    #expect(error.message.contains("the migration '3 broken' failed"), "\(error.message)")
                }
                // Its transaction was rolled back: no half of it stays.
                let after = try await databases[0].sql.select().column("name").from("items").all(decoding: Item.self)
                #expect(after.map(\.name) == ["first"])
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func aRouteReadsAndWritesRowsThroughRequestDatabase(_ kind: TestDatabaseKind) async throws {
            try await kind.with { (databases: [Database]) async throws in
                let database = databases[0]
                database.migrations.add("1 create items") { sql in
                    try await sql.create(table: "items").column("id", type: .bigint, .primaryKey).column("name", type: .text, .notNull).run()
                }
                let app = App(settings: testSettings())
                app.use(database)
                app.post("/items") { request in
                    let row = try await request.database.sql.insert(into: "items").columns("name")
                        .values(SQLBind(request.params["name"] ?? "")).returning("id").first()
                    return "\(try row?.decode(column: "id", as: Int.self) ?? 0)"
                }
                app.get("/items/:id") { request in
                    guard let id = Int(request.params["id"] ?? ""),
                        let item = try await request.database.sql.select().column("name").from("items").where("id", .equal, id)
                            .first(decoding: Item.self)
                    else { throw HttpError(.notFound, "No such item.") }
                    return item.name
                }
                let client = TestClient(app)
                let hostile = "'); DROP TABLE items; --"
                #expect(try await client.post("/items", form: ["name": hostile]).text == "1")
                #expect(try await client.get("/items/1").text == hostile)
                #expect(try await client.get("/items/2").status == .notFound)
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func aTransactionCommitsOrRollsBackAndOtherRequestsStatementsStayOutOfIt(_ kind: TestDatabaseKind) async throws {
            try await kind.with { (databases: [Database]) async throws in
                let database = databases[0]
                try await database.sql.create(table: "items").column("name", type: .text, .notNull).run()
                let names: @Sendable () async throws -> [String] = {
                    try await database.sql.select().column("name").from("items").orderBy("name").all(decoding: Item.self).map(\.name)
                }
                let kept = try await database.transaction { sql in
                    try await sql.insert(into: "items").columns("name").values(SQLBind("kept")).run()
                    return "done"
                }
                #expect(kept == "done")
                #expect(try await names() == ["kept"])

                // The work's own error comes out unchanged, and nothing of it stays.
                await #expect(throws: HttpError.self) {
                    try await database.transaction { sql in
                        try await sql.insert(into: "items").columns("name").values(SQLBind("thrown")).run()
                        throw HttpError(.conflict, "Taken.")
                    }
                }
                #expect(try await names() == ["kept"])

                // While a transaction is open, another request's statement is not part of it: it
                // does not see its row (on PostgreSQL it runs beside it; on SQLite it waits for
                // its end), and the rollback takes nothing of it.
                let (inserted, insertedSignal) = AsyncStream<Void>.makeStream()
                let (release, releaseSignal) = AsyncStream<Void>.makeStream()
                let open = Task {
                    try await database.transaction { sql in
                        try await sql.insert(into: "items").columns("name").values(SQLBind("pending")).run()
                        insertedSignal.yield()
                        for await _ in release { break }
                        throw HttpError(.conflict, "Changed my mind.")
                    }
                }
                for await _ in inserted { break }
                let beside = Task { try await names() }
                try await Task.sleep(for: .milliseconds(100))
                releaseSignal.yield()
                await #expect(throws: HttpError.self) { try await open.value }
                #expect(try await beside.value == ["kept"])
                #expect(try await names() == ["kept"])

                // A statement that failed fails the transaction, even when its work went on.
                await #expect(throws: DatabaseError.self) {
                    try await database.transaction { sql in
                        try await sql.insert(into: "items").columns("name").values(SQLBind("before")).run()
                        _ = try? await sql.raw("INSERT INTO no_such_table VALUES (1)").run()
                        try await sql.insert(into: "items").columns("name").values(SQLBind("after")).run()
                    }
                }
                #expect(try await names() == ["kept"])

                // One opened inside another is part of it: the outer's rollback takes both.
                await #expect(throws: HttpError.self) {
                    try await database.transaction { _ in
                        try await database.transaction { sql in
                            try await sql.insert(into: "items").columns("name").values(SQLBind("inner")).run()
                        }
                        throw HttpError(.conflict, "Changed my mind.")
                    }
                }
                #expect(try await names() == ["kept"])

                // So is a store's statement made through `run` inside it (as a rename's carry
                // makes them): the rollback takes it too, on PostgreSQL as on SQLite.
                await #expect(throws: HttpError.self) {
                    try await database.transaction { _ in
                        try await database.run("add an item") { sql in
                            try await sql.insert(into: "items").columns("name").values(SQLBind("a store's")).run()
                        }
                        throw HttpError(.conflict, "Changed my mind.")
                    }
                }
                #expect(try await names() == ["kept"])
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func transactionsAtOnceTakeTurnsAndLoseNoUpdate(_ kind: TestDatabaseKind) async throws {
            try await kind.with { (databases: [Database]) async throws in
                let database = databases[0]
                try await database.sql.create(table: "counter").column("n", type: .bigint, .notNull).run()
                try await database.sql.insert(into: "counter").columns("n").values(SQLBind(0)).run()
                struct Count: Decodable { let n: Int }
                // Each reads, then writes what it read plus one: a lost update would show as a
                // count short of the transactions. `FOR UPDATE` where the dialect has it
                // (PostgreSQL); SQLite's transaction holds the write lock from its start.
                let transactions = 8
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<transactions {
                        group.addTask {
                            try await database.transaction { sql in
                                let count = try #require(try await sql.select().column("n").from("counter").for(.update).first(decoding: Count.self))
                                try await sql.update("counter").set("n", to: SQLBind(count.n + 1)).run()
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                let count = try await database.sql.select().column("n").from("counter").first(decoding: Count.self)
                #expect(count?.n == transactions)
            }
        }

        @Test func aSqliteTransactionCannotStartOnAMissingFile() async throws {
            try await TestDatabaseKind.sqlite.with { (databases: [Database]) async throws in
                try FileManager.default.removeItem(atPath: databases[0].description)
                do {
                    try await databases[0].transaction { _ in }
                    Issue.record("the transaction ran")
                } catch let error as DatabaseError {
                    #expect(error.description.contains("is missing"), "\(error.description)")
                }
                #expect(!FileManager.default.fileExists(atPath: databases[0].description))
            }
        }

        @Test func aNewSqliteFileIsItsOwnersOnly() async throws {
            try await TestDatabaseKind.sqlite.with { (databases: [Database]) async throws in
                let path = databases[0].description
                let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
                #expect(mode == 0o600)
            }
        }

        private struct Item: Decodable { let name: String }

        private func testSettings() -> Settings {
            var settings = Settings()
            settings.environment = .test
            settings.accessLog = false
            settings.views = nil
            return settings
        }
    }
}
