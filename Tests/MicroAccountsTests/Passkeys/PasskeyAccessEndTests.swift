import Foundation
import MicroAccounts
import MicroAuth
import MicroCore
import MicroPasskeys
import MicroTestSupport
import MicroTesting
import SQLKit
import Testing

/// The users page's answers to an incident ("End sessions", "Set password", "Disable", and
/// "Enable" after it) end every way into the account: the user's passkeys and API tokens go
/// with their sessions, so that a passkey added with a stolen cookie does not keep the account.
/// A change of roles ends the sessions only.
@Suite struct PasskeyAccessEndTests {
    typealias Driver = PasskeyScriptDriver

    /// An app on `clock` where `user` has a passkey and an API token, both shown to work, and
    /// `ann`, an admin whose proof holds, is signed in on the client returned.
    struct Fixture {
        let app: App
        let database: Database
        let admin: TestClient
        var authenticator: SoftwareAuthenticator
        let handle: [UInt8]
        let token: String
    }

    func makeFixture(_ folder: TemporaryFolder, clock: TestClock) async throws -> Fixture {
        let (app, database) = try await Driver.makeApp(folder, clock: clock)
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        var authenticator = try SoftwareAuthenticator(.es256)
        #expect(try await Driver.add(client, authenticator).status == .created)
        let token = try await client.makeApiToken(name: "cron", password: "secret123")
        let handle = try #require(try await PasskeyStore(database).userHandle(of: "user"))
        authenticator.signCount += 1
        #expect(try await Driver.signIn(TestClient(app), authenticator, userHandle: handle).status == .ok, "the passkey signs in")
        #expect(try await TestClient(app).get("/me", headers: bearer(token)).text == "user", "the token works")
        _ = try await SqliteUserStore(path: folder.file("users.db")).setRoles(of: "ann", to: ["admin"], keepingOne: "admin")
        let admin = TestClient(app)
        try await admin.signIn("ann", "ann-password")
        try await admin.confirmAdmin("ann-password")
        clock.advance(seconds: 1)
        return Fixture(app: app, database: database, admin: admin, authenticator: authenticator, handle: handle, token: token)
    }

    func bearer(_ token: String) -> HttpHeaders {
        ["Accept": "application/json", "Authorization": "Bearer " + token]
    }

    func removals(_ database: Database) async throws -> [String] {
        try await database.sql.select().column("detail").from("micro_activity").where("event", .equal, "passkey_removed").all()
            .map { try $0.decode(column: "detail", as: String.self) }
    }

    @Test(arguments: [["sign-out"], ["password"], ["disable"], ["disable", "enable"]])
    func theUsersPagesIncidentActionsEndTheUsersPasskeysAndTokens(_ actions: [String]) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock(Date())
        var fixture = try await makeFixture(folder, clock: clock)
        for action in actions {
            let answer = try await fixture.admin.post("/admin/users/\(action)", form: ["username": "user", "new_password": "a brand new one 42"])
            #expect(answer.status == .seeOther, "\(action): \(answer.text.prefix(300))")
            clock.advance(seconds: 1)
        }
        #expect(try await PasskeyStore(fixture.database).passkeys(of: "user").isEmpty)
        fixture.authenticator.signCount += 1
        let signIn = try await Driver.signIn(TestClient(fixture.app), fixture.authenticator, userHandle: fixture.handle)
        #expect(signIn.status == .unauthorized, "\(actions): the passkey no longer signs in")
        #expect(try await TestClient(fixture.app).get("/me", headers: bearer(fixture.token)).status == .unauthorized, "\(actions)")
        #expect(try await removals(fixture.database) == ["all 1, by ann"], "the user's event names the admin")
        if actions == ["password"] {
            let flash = try await fixture.admin.get("/admin/users").text
            #expect(flash.contains("their sessions, API tokens and passkeys have ended"))
        }
    }

    @Test func aChangeOfRolesEndsTheSessionsAndKeepsThePasskeys() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock(Date())
        var fixture = try await makeFixture(folder, clock: clock)
        #expect(try await fixture.admin.post("/admin/users/roles", form: ["username": "user", "roles": "ops"]).status == .seeOther)
        clock.advance(seconds: 1)
        fixture.authenticator.signCount += 1
        #expect(try await Driver.signIn(TestClient(fixture.app), fixture.authenticator, userHandle: fixture.handle).status == .ok)
        #expect(try await removals(fixture.database).isEmpty)
    }
}
