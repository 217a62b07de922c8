import Foundation
import Micro
import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import MicroTwoFactor
import Testing

/// Making an API token asks what turning the second factor off asks: the password, and the code
/// where the second factor is on; a session signed in by single sign-on makes one only while
/// its sign-in is as recent as a proof.
@Suite struct ApiTokenProofTests {
    private static let json: HttpHeaders = ["Accept": "application/json"]

    /// `user` (secret123) in a SQLite file, the account pages' state in another, on `clock`;
    /// `POST /sso/NAME` signs NAME in as single sign-on does.
    private func withApp(_ body: (App, TestClock) async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let app = isolatedApp { $0.clock = { clock.now } }
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        let database = try await Database.sqlite(path: folder.file("app.db"))
        app.use(Accounts(database: database))
        app.post("/sso/:name") { request in
            guard let stored = try users.find(username: request.params["name"] ?? "") else { throw HttpError(.notFound) }
            try await request.signIn(stored.user, credentialStamp: CredentialStamp(stored), via: "test")
            return "signed in"
        }
        do {
            try await body(app, clock)
        } catch {
            await database.shutdown()
            throw error
        }
        await database.shutdown()
    }

    @Test func aUserWithASecondFactorGivesTheCodeBesideThePassword() async throws {
        try await withApp { app, clock in
            let now = { Int64(clock.now.timeIntervalSince1970) }
            let setup = TestClient(app)
            try await setup.signIn("user", "secret123")
            let turnedOn = try await setup.turnOnTwoFactor(password: "secret123") { Totp(secret: Base32.decode($0) ?? []).code(at: now()) }
            let totp = Totp(secret: try #require(Base32.decode(turnedOn.secret)))
            clock.advance(seconds: 30)
            let client = TestClient(app)
            try await client.signIn("user", "secret123", code: totp.code(at: now()))
            #expect(try await client.get("/account/tokens").text.contains(#"name="code""#))

            let passwordAlone = try await client.post("/account/tokens", form: ["name": "stolen cookie", "current_password": "secret123"])
            #expect(passwordAlone.status == .unprocessableEntity && !passwordAlone.text.contains("data-token="), "\(passwordAlone.text.suffix(400))")
            let wrong = try await client.post("/account/tokens", form: ["name": "x", "current_password": "secret123", "code": "000000"])
            #expect(wrong.status == .unprocessableEntity)
            clock.advance(seconds: 30)
            let token = try await client.makeApiToken(name: "cron", password: "secret123", code: totp.code(at: now()))
            #expect(token.hasPrefix("micro_"))
        }
    }

    @Test func aSingleSignOnSessionMakesOneOnlyWhileItsSignInIsRecent() async throws {
        try await withApp { app, clock in
            let sso = TestClient(app)
            #expect(try await sso.post("/sso/user", form: [:]).status == .ok)
            let page = try await sso.get("/account/tokens")
            #expect(!page.text.contains(#"name="current_password""#) && page.text.contains("Make a token"))
            let made = try await sso.post("/account/tokens", form: ["name": "fresh"], headers: Self.json)
            #expect(made.status == .created, "\(made.text)")

            // Kept alive past the proof's ten minutes.
            clock.advance(seconds: 300)
            #expect(try await sso.get("/account/tokens").status == .ok)
            clock.advance(seconds: 301)
            let stale = try await sso.post("/account/tokens", form: ["name": "a year of access"], headers: Self.json)
            #expect(stale.status == .forbidden && stale.text.contains("sign in again"), "\(stale.text)")
            let later = try await sso.get("/account/tokens")
            #expect(later.text.contains("Sign out and sign in again to make a token") && !later.text.contains("Make a token"))
            // Signed in again, it may.
            #expect(try await sso.post("/sso/user", form: [:]).status == .ok)
            #expect(try await sso.post("/account/tokens", form: ["name": "after a sign-in"], headers: Self.json).status == .created)
        }
    }
}
