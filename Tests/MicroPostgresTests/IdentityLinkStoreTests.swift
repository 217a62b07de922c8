import Foundation
import Micro
import MicroOpenIdConnect
import MicroTestSupport
import Testing

extension MicroPostgresTests {
    /// Single sign-on's links in a database, against SQLite and (with a test server) PostgreSQL:
    /// shared by instances, kept across restarts, made once however the sign-ins race, and
    /// gone with their user.
    @Suite struct IdentityLinks {
        private let issuer = "https://login.example.com"

        private func identity(_ subject: String) -> ExternalIdentity { ExternalIdentity(issuer: issuer, subject: subject) }

        @Test(arguments: TestDatabaseKind.available)
        func theLinksOfUsersAreListedAndRemoved(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 1) { (databases: [Database]) async throws in
                let links = try await DatabaseIdentityLinkStore(databases[0])
                #expect(try await links.link(identity("sub-ann"), to: "ann"))
                #expect(try await links.link(ExternalIdentity(issuer: "https://other.example", subject: "9"), to: "ann"))
                #expect(try await links.link(identity("sub-bob"), to: "bob"))
                #expect(try await links.links(of: ["ann", "cy"], limit: 10).map(\.identity.issuer) == [issuer, "https://other.example"])
                #expect(try await links.allLinks(limit: 10).map(\.username) == ["ann", "ann", "bob"])
                #expect(try await links.unlinkAll(of: "ann").count == 2)
                #expect(try await links.allLinks(limit: 10).map(\.username) == ["bob"])
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func aLinkIsSharedByInstancesAndKeptByANewConnection(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 3) { (databases: [Database]) async throws in
                let one = try await DatabaseIdentityLinkStore(databases[0])
                let two = try await DatabaseIdentityLinkStore(databases[1])
                #expect(try await one.link(identity("sub-ann"), to: "ann"))
                // Linking again the same pair is no change, on any instance.
                #expect(try await two.link(identity("sub-ann"), to: "ann"))
                #expect(try await two.username(linkedTo: identity("sub-ann")) == "ann")
                #expect(try await two.identity(linkedTo: "ann", issuer: issuer) == identity("sub-ann"))
                // Another issuer's subject of the same name is someone else.
                #expect(try await two.username(linkedTo: ExternalIdentity(issuer: "https://other.example", subject: "sub-ann")) == nil)
                #expect(try await two.identity(linkedTo: "ann", issuer: "https://other.example") == nil)
                // Neither side of a link takes a second partner.
                #expect(try await two.link(identity("sub-mallory"), to: "ann") == false)
                #expect(try await one.link(identity("sub-ann"), to: "bob") == false)
                #expect(try await one.username(linkedTo: identity("sub-mallory")) == nil)
                // What a restarted instance reads: a new store over another connection.
                let restarted = try await DatabaseIdentityLinkStore(databases[2])
                #expect(try await restarted.username(linkedTo: identity("sub-ann")) == "ann")
                try await restarted.unlink(identity("sub-ann"))
                #expect(try await one.username(linkedTo: identity("sub-ann")) == nil)
                #expect(try await one.link(identity("sub-new"), to: "ann"))
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func racingFirstSignInsOnTwoInstancesMakeOneLink(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 2) { (databases: [Database]) async throws in
                let stores = [try await DatabaseIdentityLinkStore(databases[0]), try await DatabaseIdentityLinkStore(databases[1])]
                // Eight subjects claim one user at once, half on each instance: one wins.
                let subjects = try await withThrowingTaskGroup(of: (String, Bool).self) { group in
                    for index in 0..<8 {
                        group.addTask { ("sub-\(index)", try await stores[index % 2].link(identity("sub-\(index)"), to: "ann")) }
                    }
                    return try await group.reduce(into: [String: Bool]()) { $0[$1.0] = $1.1 }
                }
                let winners = subjects.filter(\.value).map(\.key)
                #expect(winners.count == 1)
                #expect(try await stores[1].identity(linkedTo: "ann", issuer: issuer) == identity(try #require(winners.first)))
                // One subject's first sign-in, at once on both instances, as eight users: one link.
                let users = try await withThrowingTaskGroup(of: (String, Bool).self) { group in
                    for index in 0..<8 {
                        group.addTask { ("user\(index)", try await stores[index % 2].link(identity("sub-zed"), to: "user\(index)")) }
                    }
                    return try await group.reduce(into: [String: Bool]()) { $0[$1.0] = $1.1 }
                }
                let linked = users.filter(\.value).map(\.key)
                #expect(linked.count == 1)
                #expect(try await stores[0].username(linkedTo: identity("sub-zed")) == linked.first)
                let rows = try await databases[0].sql.select().column("subject").from("micro_identity_links").all()
                #expect(rows.count == 2)
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func aUserDeletedOrRenamedInTheUsersTableTakesTheirLinksAlong(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 2) { (databases: [Database]) async throws in
                let sql = databases[0].sql
                try await sql.create(table: "users").ifNotExists()
                    .column("username", type: .text, .notNull).column("password_hash", type: .text, .notNull).run()
                for name in ["ann", "bob", "cy"] {
                    try await sql.insert(into: "users").columns("username", "password_hash").values(SQLBind(name), SQLBind("x")).run()
                }
                let one = try await DatabaseIdentityLinkStore(databases[0], usersTable: "users")
                // The second instance finds the triggers made.
                let two = try await DatabaseIdentityLinkStore(databases[1], usersTable: "users")
                for name in ["ann", "bob", "cy"] { #expect(try await one.link(identity("sub-\(name)"), to: name)) }
                // Removed by another program, in plain SQL: ann's link goes, bob's stays.
                try await databases[1].sql.delete(from: "users").where("username", .equal, "ann").run()
                #expect(try await two.username(linkedTo: identity("sub-ann")) == nil)
                #expect(try await two.username(linkedTo: identity("sub-bob")) == "bob")
                // A new ann is free for whoever the provider's next first sign-in brings.
                try await sql.insert(into: "users").columns("username", "password_hash").values(SQLBind("ann"), SQLBind("y")).run()
                #expect(try await two.link(identity("sub-new-ann"), to: "ann"))
                // Renamed: the link moves with the row (the same person), and an earlier holder's
                // link under the new name goes; a change of anything else keeps it.
                try await sql.update("users").set("password_hash", to: "z").where("username", .equal, "cy").run()
                #expect(try await one.username(linkedTo: identity("sub-cy")) == "cy")
                #expect(try await one.link(identity("sub-old-dee"), to: "dee"))
                try await sql.update("users").set("username", to: "dee").where("username", .equal, "bob").run()
                #expect(try await one.username(linkedTo: identity("sub-bob")) == "dee")
                #expect(try await one.username(linkedTo: identity("sub-old-dee")) == nil)
                #expect(try await one.username(linkedTo: identity("sub-cy")) == "cy")
            }
        }

        @Test func removingAUserThroughSqliteUserStoreTakesTheirLinks() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-links-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let path = folder.appendingPathComponent("users.db").path
            // As SampleApp has them: the store's own connection, and the Database beside it.
            let users = try SqliteUserStore(path: path, create: true)
            try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: nil)
            let database = try await Database.sqlite(path: path)
            let links = try await DatabaseIdentityLinkStore(database, usersTable: "users")
            #expect(try await links.link(identity("sub-ann"), to: "ann"))
            #expect(try users.remove(username: "ann"))
            #expect(try await links.username(linkedTo: identity("sub-ann")) == nil)
            await database.shutdown()
        }

        @Test(.enabled(if: PostgresTestDatabase.available, PostgresTestDatabase.skipNote))
        func removingAUserThroughPostgresUserStoreTakesTheirLinks() async throws {
            try await PostgresTestDatabase.withInstances(2) { _, instances in
                try await instances[0].users.save(username: "ann", passwordHash: TestHashes.annPassword, name: nil)
                let one = try await DatabaseIdentityLinkStore(instances[0].database.database, usersTable: "users")
                let two = try await DatabaseIdentityLinkStore(instances[1].database.database, usersTable: "users")
                #expect(try await one.link(identity("sub-ann"), to: "ann"))
                #expect(try await instances[1].users.remove(username: "ann"))
                #expect(try await two.username(linkedTo: identity("sub-ann")) == nil)
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func anExpiredLinkIsAsNoneAndMakingALinkDeletesExpiredOnes(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 2) { (databases: [Database]) async throws in
                let one = try await DatabaseIdentityLinkStore(databases[0])
                let two = try await DatabaseIdentityLinkStore(databases[1])
                let start: Int64 = 2_000_000_000
                let day: Int64 = 86_400
                #expect(try await one.link(identity("sub-ann"), to: "ann", now: start))
                #expect(try await one.link(identity("sub-bob"), to: "bob", now: start))
                // Bob signs in within the year; ann does not.
                #expect(try await two.follow(identity("sub-bob"), now: start + 300 * day) == "bob")
                let later = start + 366 * day
                #expect(try await two.follow(identity("sub-ann"), now: later) == nil)
                #expect(try await two.follow(identity("sub-bob"), now: later) == "bob")
                // Ann's name goes to the next first sign-in, and her expired row is deleted.
                #expect(try await two.link(identity("sub-new-ann"), to: "ann", now: later))
                let rows = try await databases[0].sql.select().column("subject").from("micro_identity_links").all()
                    .map { try $0.decode(column: "subject", as: String.self) }
                #expect(Set(rows) == ["sub-bob", "sub-new-ann"])
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func aLinksLastUseIsWrittenAtMostOnceADay(_ kind: TestDatabaseKind) async throws {
            try await kind.with { (databases: [Database]) async throws in
                let links = try await DatabaseIdentityLinkStore(databases[0])
                let start: Int64 = 2_000_000_000
                func lastUsed() async throws -> Int64? {
                    try await databases[0].sql.select().column("last_used_at").from("micro_identity_links").first()?
                        .decode(column: "last_used_at", as: Int64.self)
                }
                #expect(try await links.link(identity("sub-ann"), to: "ann", now: start))
                #expect(try await links.follow(identity("sub-ann"), now: start + 3_600) == "ann")
                #expect(try await lastUsed() == 2_000_000_000)
                #expect(try await links.follow(identity("sub-ann"), now: start + 90_000) == "ann")
                #expect(try await lastUsed() == 2_000_090_000)
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func linksMadeBeforeTheUpgradeCountAsUsedAtIt(_ kind: TestDatabaseKind) async throws {
            try await kind.with { (databases: [Database]) async throws in
                // The table as the first migration made it, with a link made long ago.
                let sql = databases[0].sql
                try await sql.raw("""
                    CREATE TABLE micro_identity_links (issuer TEXT NOT NULL, subject TEXT NOT NULL, username TEXT NOT NULL,
                        linked_at BIGINT NOT NULL, PRIMARY KEY (issuer, subject), UNIQUE (issuer, username))
                    """).run()
                try await sql.insert(into: "micro_identity_links").columns("issuer", "subject", "username", "linked_at")
                    .values(SQLBind(issuer), SQLBind("sub-ann"), SQLBind("ann"), SQLBind(Int64(1_000_000_000))).run()
                let links = try await DatabaseIdentityLinkStore(databases[0])
                // A year on from the upgrade it has expired; within it, it stands (read first, as
                // following it would note a use).
                #expect(try await links.follow(identity("sub-ann"), now: Int64(Date().timeIntervalSince1970) + 366 * 86_400) == nil)
                #expect(try await links.follow(identity("sub-ann"), now: Int64(Date().timeIntervalSince1970) + 300 * 86_400) == "ann")
            }
        }

        @Test func aUsersTableThatIsNoPlainNameIsRefused() async throws {
            try await TestDatabaseKind.sqlite.with { (databases: [Database]) async throws in
                await #expect(throws: ConfigurationError.self) {
                    _ = try await DatabaseIdentityLinkStore(databases[0], usersTable: "users; DROP TABLE x")
                }
            }
        }
    }
}
