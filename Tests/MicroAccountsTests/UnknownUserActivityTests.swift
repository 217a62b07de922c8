import Foundation
import Micro
import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// Failed sign-ins under names that are no user are kept apart, within their own bounds:
/// however many addresses send them, the accounts' events stay.
@Suite struct UnknownUserActivityTests {
    private static let json: HttpHeaders = ["Accept": "application/json"]

    private func stranger(_ index: Int, at: Int64) -> ActivityEvent {
        ActivityEvent(
            username: ActivityEvent.unknownUser, event: ActivityEvent.Kind.signInFailed, at: at,
            address: "2001:db8:\(index / 65_536):\(index % 65_536)::1", browser: "curl")
    }

    private func list(_ client: TestClient, _ path: String) async throws -> [[String: Any]] {
        let answer = try await client.get(path, headers: Self.json)
        return try JSONSerialization.jsonObject(with: Data(answer.body)) as? [[String: Any]] ?? []
    }

    @Test func aFloodOfUnknownNamesPushesOutNoAccountsEvents() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann Smith", roles: ["admin"])
        let app = isolatedApp()
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        let database = try await Database.sqlite(path: folder.file("app.db"))
        var accounts = Accounts(database: database)
        let log = DatabaseActivityLog(database, rowLimit: 100, unknownRowLimit: 50)
        accounts.activity = log
        app.use(accounts)
        let ann = TestClient(app)
        try await ann.signIn("ann", "ann-password")
        _ = try await TestClient(app).post("/signin", form: ["username": "nobody", "password": "wrong"])
        // Far more than either limit, from as many addresses, as the sign-in form records them.
        let now = Int64(Date().timeIntervalSince1970)
        for index in 0..<1_200 { try await log.record(stranger(index, at: now)) }
        let mine = try await list(ann, "/account/activity")
        #expect(mine.contains { $0["event"] as? String == ActivityEvent.Kind.signedIn })
        let audit = try await list(ann, "/admin/audit")
        #expect(audit.contains { $0["user"] as? String == "ann" })
        #expect(!audit.contains { $0["user"] as? String == ActivityEvent.unknownUser })
        // They are listed apart, linked from the audit, and bounded there.
        #expect(try await ann.get("/admin/audit").text.contains("?user=unknown%20user"))
        let strangers = try await list(ann, "/admin/audit?user=unknown%20user")
        #expect(!strangers.isEmpty && strangers.allSatisfy { $0["user"] as? String == ActivityEvent.unknownUser })
        let kept = try await database.sql.select().column(SQLFunction("count", args: SQLLiteral.all), as: "n")
            .from("micro_unknown_user_activity").first()?.decode(column: "n", as: Int.self) ?? 0
        #expect(kept <= 50 + 500)
    }

    @Test func inMemoryTheyAreKeptApartToo() async throws {
        let log = MemoryActivityLog(limit: 10, unknownLimit: 5)
        try await log.record(ActivityEvent(username: "ann", event: ActivityEvent.Kind.signedIn, at: 1_700_000_000, address: "192.0.2.1", browser: "Firefox"))
        for index in 0..<100 { try await log.record(stranger(index, at: 1_700_000_001)) }
        #expect(try await log.events(of: nil, offset: 0, limit: 100).map(\.username) == ["ann"])
        #expect(try await log.events(of: ActivityEvent.unknownUser, offset: 0, limit: 100).count == 5)
    }

    @Test func unknownUsersEventsKeptWithTheAccountsBeforeAreMovedApart() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Database.sqlite(path: folder.file("app.db"))
        // The table as an earlier version left it, both kinds of event in it.
        try await database.migrate(Array(DatabaseActivityLog.migrations.prefix(1)))
        for (name, event) in [("ann", "signed_in"), (ActivityEvent.unknownUser, "sign_in_failed"), ("ann", "signed_out")] {
            try await database.sql.insert(into: "micro_activity").columns("username", "event", "at", "address", "browser", "detail")
                .values(SQLBind(name), SQLBind(event), SQLBind(Int64(1_700_000_000)), SQLBind("192.0.2.1"), SQLBind("Firefox"), SQLBind("")).run()
        }
        try await database.migrate(DatabaseActivityLog.migrations)
        let log = DatabaseActivityLog(database)
        #expect(try await log.events(of: nil, offset: 0, limit: 10).map(\.event) == ["signed_out", "signed_in"])
        #expect(try await log.events(of: ActivityEvent.unknownUser, offset: 0, limit: 10).map(\.event) == ["sign_in_failed"])
        await database.shutdown()
    }
}
