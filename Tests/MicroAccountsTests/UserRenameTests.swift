import Foundation
import Micro
import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
@testable import MicroTwoFactor
import Testing

/// A renamed user keeps what is theirs (their API tokens, second factor and recovery codes,
/// history) under the new name; every session of the old name ends; someone given the old
/// name afterwards inherits none of it.
@Suite struct UserRenameTests {
    private static let json: HttpHeaders = ["Accept": "application/json"]

    private static let secret = String(repeating: "s", count: 40)

    /// An instance of the app; `second`: another over the same files, as a second process is.
    private func makeApp(_ folder: TemporaryFolder, clock: TestClock, second: Bool = false) async throws -> (App, SqliteUserStore) {
        let users = try SqliteUserStore(path: folder.file("users.db"), create: !second)
        if !second {
            try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann Smith", roles: ["admin"])
            try users.save(username: "bob", passwordHash: TestHashes.secret123, name: nil)
        }
        let app = isolatedApp {
            $0.clock = { clock.now }
            $0.sessions.secret = Self.secret
        }
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        let database = try await Database.sqlite(path: folder.file("app.db"))
        app.use(Accounts(database: database))
        app.get("/me") { request in try request.authenticate().username }
        // What the SCIM routes will do with a provider's new userName.
        app.get("/rename/:old/:new") { request in
            let outcome = try await request.renameUser(request.params["old"] ?? "", to: request.params["new"] ?? "")
            return "\(outcome)"
        }
        return (app, users)
    }

    private func events(_ client: TestClient) async throws -> [[String: Any]] {
        let answer = try await client.get("/account/activity", headers: Self.json)
        return try JSONSerialization.jsonObject(with: Data(answer.body)) as? [[String: Any]] ?? []
    }

    private func tokenValue(in page: String) -> String? {
        guard let range = page.range(of: #"data-token="micro_[A-Za-z0-9_-]+""#, options: .regularExpression) else { return nil }
        return String(page[range].dropFirst("data-token=\"".count).dropLast())
    }

    @Test func aRenamedUserKeepsTokensAndSecondFactorAndTheirOldSessionsEnd() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock(Date())
        let (app, _) = try await makeApp(folder, clock: clock)
        let bob = TestClient(app)
        try await bob.signIn("bob", "secret123")
        let page = try await bob.post("/account/tokens", form: ["name": "deploy", "current_password": "secret123"])
        let token = try #require(tokenValue(in: page.text))
        let setup = try await bob.turnOnTwoFactor(password: "secret123") { Totp(secret: Base32.decode($0) ?? []).code(at: Int64(clock.now.timeIntervalSince1970)) }
        let totp = Totp(secret: try #require(Base32.decode(setup.secret)))
        #expect(try await bob.get("/me").text == "bob")

        let anonymous = TestClient(app)
        #expect(try await anonymous.get("/rename/bob/robert").text == "done")
        #expect(try await anonymous.get("/rename/robert/ann").text == "taken")
        #expect(try await anonymous.get("/rename/nobody/somebody").text == "noSuchUser")

        // The cookie names bob: that session is over.
        #expect(try await bob.get("/me").status != .ok)
        // The token goes on working, as robert.
        let script = TestClient(app)
        #expect(try await script.get("/me", headers: ["Authorization": "Bearer " + token]).text == "robert")
        // The second factor too: a code of the secret, and a recovery code.
        clock.advance(seconds: 30)
        let robert = TestClient(app)
        _ = try await robert.signIn("robert", "secret123", code: totp.code(at: Int64(clock.now.timeIntervalSince1970)))
        #expect(try await robert.get("/me").text == "robert")
        let other = TestClient(app)
        _ = try await other.signIn("robert", "secret123", code: try #require(setup.recoveryCodes.first))
        #expect(try await other.get("/me").text == "robert")
        // Their history came along, with the rename.
        let history = try await events(robert)
        #expect(history.contains { $0["event"] as? String == ActivityEvent.Kind.renamed && $0["detail"] as? String == "from bob" })
        #expect(history.contains { $0["event"] as? String == "two_factor_enabled" })

        // Someone new named bob inherits nothing: no second step, no token, no history.
        let users = try SqliteUserStore(path: folder.file("users.db"))
        try users.save(username: "bob", passwordHash: TestHashes.annPassword, name: "Bob Two")
        await users.shutdown()
        let newBob = TestClient(app)
        try await newBob.signIn("bob", "ann-password")
        #expect(try await newBob.get("/me").text == "bob")
        let fresh = try await events(newBob)
        #expect(!fresh.contains { $0["event"] as? String == "two_factor_enabled" || $0["event"] as? String == ActivityEvent.Kind.renamed })
        #expect(try await script.get("/me", headers: ["Authorization": "Bearer " + token]).text == "robert")
    }

    @Test func aSessionOfTheOldNameIsRefusedOnASecondInstanceWithinTwoSeconds() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock(Date())
        let (one, _) = try await makeApp(folder, clock: clock)
        let (two, _) = try await makeApp(folder, clock: clock, second: true)
        let bob = TestClient(two)
        try await bob.signIn("bob", "secret123")
        #expect(try await bob.get("/me").text == "bob")

        #expect(try await TestClient(one).get("/rename/bob/robert").text == "done")
        // The second instance learns it from the users table (read again about once a second).
        let start = ContinuousClock.now
        var refused = false
        while !refused, ContinuousClock.now - start < .seconds(2) {
            refused = try await bob.get("/me").status != .ok
            if !refused { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(refused, "the old name's session still stood on the second instance after 2 seconds")
        // The new name signs in there.
        let robert = TestClient(two)
        try await robert.signIn("robert", "secret123")
        #expect(try await robert.get("/me").text == "robert")
    }

    @Test func aCarryThatFailsRenamesTheUserBack() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock(Date())
        let (app, users) = try await makeApp(folder, clock: clock)
        struct Refusal: Error {}
        app.onUserRenamed("something that fails") { _, _ in throw Refusal() }
        app.get("/try-rename") { request in
            do { return "\(try await request.renameUser("bob", to: "robert"))" } catch { return "refused" }
        }
        #expect(try await TestClient(app).get("/try-rename").text == "refused")
        // Bob keeps his name, and with it what is kept under it: never renamed without them.
        #expect(try users.find(username: "bob") != nil)
        #expect(try users.find(username: "robert") == nil)
        let bob = TestClient(app)
        try await bob.signIn("bob", "secret123")
        #expect(try await bob.get("/me").text == "bob")
    }

    @Test func leftoversCarriedAsTheCommandDoesMovePasskeysLinksAndExternalIds() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Database.sqlite(path: folder.file("app.db"))
        try await database.migrate(PasskeyStore.migrations + DatabaseScimStore.migrations)
        try await database.sql.raw("""
            INSERT INTO micro_passkeys (credential_id, username, user_handle, name, algorithm, public_key, sign_count, backup_eligible, created_at, last_used_at)
            VALUES ('cred', 'bob', 'handle', 'laptop', -7, 'key', 0, 0, 1, 1), ('old', 'robert', 'h2', 'old', -7, 'key', 0, 0, 1, 1)
            """).run()
        let scim = DatabaseScimStore(database)
        try await scim.setExternalId("okta-bob", of: "User", "bob")
        try await scim.setExternalId("okta-gone", of: "User", "robert")
        let moved = Locked<[String]>([])
        try await AccountLeftovers.carry("bob", to: "Robert", in: database, others: [{ old, new in moved.withLock { $0.append("\(old)>\(new)") } }])
        let owners = try await database.sql.raw("SELECT credential_id, username FROM micro_passkeys").all()
            .map { "\(try $0.decode(column: "credential_id", as: String.self))=\(try $0.decode(column: "username", as: String.self))" }
        // An earlier robert's passkey was forgotten; bob's is robert's now.
        #expect(owners == ["cred=robert"])
        #expect(try await scim.externalId(of: "User", "robert") == "okta-bob")
        #expect(try await scim.externalId(of: "User", "bob") == nil)
        #expect(moved.withLock { $0 } == ["bob>robert"])
        let events = try await DatabaseActivityLog(database).events(of: "robert", offset: 0, limit: 10)
        #expect(events.isEmpty || events.allSatisfy { $0.username == "robert" })
        await database.shutdown()
    }
}
