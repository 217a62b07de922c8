import Foundation
import Micro
import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// `request.endSessions(of:)` is the one way to end a user's sessions: it revokes them on
/// every instance, and the account pages, listening, take them off the sessions page and, when
/// asked, end the user's API tokens too.
@Suite struct EndSessionsTests {
    private static let json: HttpHeaders = ["Accept": "application/json"]

    @Test func endingSessionsRevokesThemListsNoneAndEndsTokensOnlyWhenAsked() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let app = isolatedApp { $0.clock = { clock.now } }
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: nil, roles: ["admin"])
        try users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        let database = try await Database.sqlite(path: folder.file("app.db"))
        do {
            try await walk(app, database: database, clock: clock)
        } catch {
            await database.shutdown()
            throw error
        }
        await database.shutdown()
    }

    private func walk(_ app: App, database: Database, clock: TestClock) async throws {
        app.use(Accounts(database: database))
        app.get("/me") { request in request.currentUser?.username ?? "nobody" }
        // A tool's own incident action, by a name the rules fold ("USER" is "user").
        app.post("/incident/:name") { request in
            await request.endSessions(of: request.params["name"] ?? "", everyWayIn: request.params["all"] == "yes")
            return "ended"
        }
        let registry = DatabaseSessionRegistry(database)
        func listed(_ name: String) async throws -> Int {
            try await registry.sessions(of: name, now: Int64(clock.now.timeIntervalSince1970), idle: 600, lifetime: 28_800).count
        }

        let laptop = TestClient(app)
        try await laptop.signIn("user", "secret123")
        let phone = TestClient(app)
        try await phone.signIn("user", "secret123")
        let ann = TestClient(app)
        try await ann.signIn("ann", "ann-password")
        let made = try await laptop.post("/account/tokens", form: ["name": "deploy", "current_password": "secret123"])
        let range = try #require(made.text.range(of: #"data-token="micro_[A-Za-z0-9_-]+""#, options: .regularExpression))
        let token = String(made.text[range].dropFirst("data-token=\"".count).dropLast())
        let bearer: HttpHeaders = ["Accept": "application/json", "Authorization": "Bearer " + token]
        #expect(try await listed("user") == 2)

        // Sessions only: both are signed out and unlisted, the token and Ann go on.
        #expect(try await TestClient(app).post("/incident/USER", form: [:]).text == "ended")
        #expect(try await laptop.get("/me").text == "nobody")
        #expect(try await phone.get("/me").text == "nobody")
        #expect(try await listed("user") == 0)
        #expect(try await TestClient(app).get("/me", headers: bearer).text == "user")
        #expect(try await ann.get("/me").text == "ann")
        #expect(try await listed("ann") == 1)

        // Every way in: a session begun since, and the token, end.
        clock.advance(seconds: 1)
        let again = TestClient(app)
        try await again.signIn("user", "secret123")
        #expect(try await TestClient(app).post("/incident/user", form: ["all": "yes"]).text == "ended")
        #expect(try await again.get("/me").text == "nobody")
        #expect(try await TestClient(app).get("/me", headers: bearer).status == .unauthorized)
        #expect(try await ann.get("/me").text == "ann")
        // A sign-in after it is a new session, listed.
        clock.advance(seconds: 1)
        let later = TestClient(app)
        try await later.signIn("user", "secret123")
        #expect(try await later.get("/me").text == "user")
        #expect(try await listed("user") == 1)
    }
}
