import Foundation
import Micro
import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import MicroTwoFactor
import Testing

/// The users page asks the acting admin who they are, reaches the user's API tokens, and ends
/// sessions for good; the sessions page lists the current session after "sign out everywhere
/// else".
@Suite struct UserAdminProofTests {
    private static let json: HttpHeaders = ["Accept": "application/json"]

    private static func bearer(_ token: String) -> HttpHeaders {
        ["Accept": "application/json", "Authorization": "Bearer " + token]
    }

    /// `ann` (admin, ann-password) and `user` (secret123) in a SQLite file, the account pages'
    /// state in another, on `clock`.
    private func makeApp(_ folder: TemporaryFolder, clock: TestClock) async throws -> (App, Database) {
        let app = isolatedApp { $0.clock = { clock.now } }
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann Smith", roles: ["admin"])
        try users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        let database = try await Database.sqlite(path: folder.file("app.db"))
        app.use(Accounts(database: database))
        app.get("/me") { request in request.currentUser?.username ?? "nobody" }
        app.post("/sso/:name") { request in
            let name = request.params["name"] ?? ""
            guard let stored = try users.find(username: name) else { throw HttpError(.notFound) }
            try await request.signIn(stored.user, credentialStamp: CredentialStamp(stored), via: "test")
            return "signed in"
        }
        return (app, database)
    }

    /// Runs `body` with a new app on a clock of its own; the database is shut down whatever
    /// `body` does.
    private func withApp(_ body: (App, TestClock) async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let (app, database) = try await makeApp(folder, clock: clock)
        do {
            try await body(app, clock)
        } catch {
            await database.shutdown()
            throw error
        }
        await database.shutdown()
    }

    /// Makes a token for `client` (signed in with `password`) and returns it.
    private func makeToken(_ client: TestClient, name: String, password: String) async throws -> String {
        let made = try await client.post("/account/tokens", form: ["name": name, "current_password": password])
        let range = try #require(made.text.range(of: #"data-token="micro_[A-Za-z0-9_-]+""#, options: .regularExpression))
        return String(made.text[range].dropFirst("data-token=\"".count).dropLast())
    }

    @Test func changesNeedTheAdminsPasswordWhichHoldsForTenMinutes() async throws {
        try await withApp { app, clock in
            let ann = TestClient(app)
            try await ann.signIn("ann", "ann-password")
            // A cookie alone changes nothing: the page asks for the password.
            let page = try await ann.get("/admin/users")
            #expect(page.text.contains(#"name="current_password""#) && page.text.contains(#"action="/admin/users/confirm""#))
            let bare = try await ann.post("/admin/users/password", form: ["username": "ann", "new_password": "taken over 1234"])
            #expect(bare.status == .unprocessableEntity && bare.text.contains("That is not your current password."))
            #expect(try await ann.post("/admin/users/add", form: ["new_username": "eve", "password": "a fine password 1", "roles": "admin"]).status
                == .unprocessableEntity)
            #expect(try await ann.post("/admin/users/confirm", form: ["current_password": "wrong"], headers: Self.json).status == .forbidden)
            // The wrong answers were the admin's failed sign-ins.
            let audit = try await ann.get("/admin/audit?user=ann", headers: Self.json).text
            #expect(audit.components(separatedBy: "sign_in_failed").count - 1 == 3)
            // A right one, in the form itself, makes the change and holds for ten minutes.
            let disabled = try await ann.post("/admin/users/disable", form: ["username": "user", "current_password": "ann-password"])
            #expect(disabled.status == .seeOther)
            #expect(!(try await ann.get("/admin/users").text.contains(#"name="current_password""#)))
            clock.advance(seconds: 9 * 60)
            #expect(try await ann.post("/admin/users/enable", form: ["username": "user"]).status == .seeOther)
            clock.advance(seconds: 61)
            #expect(try await ann.post("/admin/users/disable", form: ["username": "user"]).status == .unprocessableEntity)
            #expect(try await ann.get("/admin/users").text.contains(#"name="current_password""#))
            // A new session of the same admin starts without it.
            try await ann.confirmAdmin("ann-password")
            let again = TestClient(app)
            try await again.signIn("ann", "ann-password")
            #expect(try await again.post("/admin/users/disable", form: ["username": "user"]).status == .unprocessableEntity)
        }
    }

    @Test func aRouteAddedUnderTheUsersPageAsksForTheProofWithoutALineOfItsOwn() async throws {
        try await withApp { app, _ in
            let ran = Locked(0)
            app.post("/admin/users/export") { _ in
                ran.withLock { $0 += 1 }
                return "exported"
            }
            app.get("/admin/users/export") { _ in "the form" }
            let ann = TestClient(app)
            try await ann.signIn("ann", "ann-password")
            let bare = try await ann.post("/admin/users/export", form: [:])
            #expect(bare.status == .unprocessableEntity && bare.text.contains("That is not your current password."), "\(bare.text)")
            #expect(!bare.text.contains(#"value="user""#), "the message alone, not the page's list")
            #expect(try await ann.post("/admin/users/export", form: [:], headers: Self.json).status == .forbidden)
            #expect(ran.withLock { $0 } == 0, "the handler never ran")
            #expect(try await ann.get("/admin/users/export").text == "the form", "reading asks for nothing")
            // Not an admin: the role first, as every users-page change.
            let user = TestClient(app)
            try await user.signIn("user", "secret123")
            #expect(try await user.post("/admin/users/export", form: ["current_password": "secret123"]).status == .forbidden)
            // The admin's password, in the form itself, lets it run.
            #expect(try await ann.post("/admin/users/export", form: ["current_password": "ann-password"]).text == "exported")
            #expect(ran.withLock { $0 } == 1)
        }
    }

    @Test func aSignInOnAProvenBrowserDropsTheProof() async throws {
        try await withApp { app, _ in
            let browser = TestClient(app)
            try await browser.signIn("ann", "ann-password")
            try await browser.confirmAdmin("ann-password")
            #expect(!(try await browser.get("/admin/users").text.contains(#"name="current_password""#)))
            // Someone signs in on this browser without signing out first (by the form here; by
            // any means, and whoever it is): the proof was the earlier sign-in's person's.
            try await browser.signIn("ann", "ann-password")
            #expect(try await browser.get("/admin/users").text.contains(#"name="current_password""#))
            #expect(try await browser.post("/admin/users/disable", form: ["username": "user"]).status == .unprocessableEntity)
        }
    }

    @Test func anAdminWithASecondFactorGivesTheCodeToo() async throws {
        try await withApp { app, clock in
            let ann = TestClient(app)
            try await ann.signIn("ann", "ann-password")
            let setup = try await ann.post("/account/two-factor/setup", form: ["current_password": "ann-password"])
            let secretRange = try #require(setup.text.range(of: #"data-totp-secret="[A-Z2-7]+""#, options: .regularExpression))
            let secret = try #require(Base32.decode(String(setup.text[secretRange].dropFirst("data-totp-secret=\"".count).dropLast())))
            let totp = Totp(secret: secret)
            let now = { Int64(clock.now.timeIntervalSince1970) }
            #expect(try await ann.post("/account/two-factor/enable", form: ["code": totp.code(at: now())]).status == .ok)
            clock.advance(seconds: 30)
            #expect(try await ann.get("/admin/users").text.contains(#"name="code""#))
            // The password alone is not enough, nor a wrong code.
            #expect(try await ann.post("/admin/users/confirm", form: ["current_password": "ann-password"]).status == .unprocessableEntity)
            #expect(try await ann.post("/admin/users/confirm", form: ["current_password": "ann-password", "code": "000000"]).status
                == .unprocessableEntity)
            try await ann.confirmAdmin("ann-password", code: totp.code(at: now()))
            #expect(try await ann.post("/admin/users/sign-out", form: ["username": "user"]).status == .seeOther)
        }
    }

    @Test func aTokenCannotChangeUsersAndASingleSignOnSessionIsItsOwnProofForAWhile() async throws {
        try await withApp { app, clock in
            let ann = TestClient(app)
            try await ann.signIn("ann", "ann-password")
            let token = try await makeToken(ann, name: "admin script", password: "ann-password")
            let script = TestClient(app)
            #expect(try await script.get("/admin/users", headers: Self.bearer(token)).status == .ok)
            for action in ["password", "disable", "sign-out", "confirm", "tokens/revoke-all"] {
                let refused = try await script.post(
                    "/admin/users/\(action)", form: ["username": "user", "new_password": "taken over 1234", "current_password": "ann-password"],
                    headers: Self.bearer(token))
                #expect(refused.status == .forbidden, "\(action)")
            }

            let sso = TestClient(app)
            #expect(try await sso.post("/sso/ann", form: [:]).status == .ok)
            #expect(try await sso.post("/admin/users/sign-out", form: ["username": "user"]).status == .seeOther)
            // Kept alive past the proof's ten minutes.
            clock.advance(seconds: 300)
            #expect(try await sso.get("/me").text == "ann")
            clock.advance(seconds: 301)
            #expect(try await sso.get("/me").text == "ann")
            let stale = try await sso.post("/admin/users/sign-out", form: ["username": "user"])
            #expect(stale.status == .forbidden && stale.text.contains("sign in again"))
            // "Sign out everywhere else" restarts the session, but not its proof.
            #expect(try await sso.post("/account/sessions/sign-out-others", form: [:]).status == .seeOther)
            #expect(try await sso.post("/admin/users/sign-out", form: ["username": "user"]).status == .forbidden)
        }
    }

    @Test func theUsersPageListsTokensAndItsIncidentActionsRevokeThem() async throws {
        try await withApp { app, clock in
            let owner = TestClient(app)
            try await owner.signIn("user", "secret123")
            let deploy = try await makeToken(owner, name: "deploy <b>", password: "secret123")
            let backup = try await makeToken(owner, name: "backup", password: "secret123")
            let script = TestClient(app)
            #expect(try await script.get("/me", headers: Self.bearer(deploy)).text == "user")

            let ann = TestClient(app)
            try await ann.signIn("ann", "ann-password")
            try await ann.confirmAdmin("ann-password")
            let page = try await ann.get("/admin/users")
            #expect(page.text.contains("deploy &lt;b&gt;") && page.text.contains(">backup<") && !page.text.contains("<b>"))
            struct Listed: Decodable { let username: String, tokens: [Token] }
            struct Token: Decodable { let id: String, name: String }
            let listed = try await ann.get("/admin/users", headers: Self.json).decode([Listed].self)
            let tokens = try #require(listed.first { $0.username == "user" }?.tokens)
            #expect(Set(tokens.map(\.name)) == ["deploy <b>", "backup"])
            #expect(!(try await ann.get("/admin/users", headers: Self.json).text.contains(deploy)))

            // Revoke one: that one stops at once, the other works.
            let backupId = try #require(tokens.first { $0.name == "backup" }?.id)
            #expect(try await ann.post("/admin/users/tokens/revoke", form: ["username": "ann", "id": backupId]).status == .notFound)
            #expect(try await ann.post("/admin/users/tokens/revoke", form: ["username": "user", "id": backupId]).status == .seeOther)
            #expect(try await script.get("/me", headers: Self.bearer(backup)).status == .unauthorized)
            #expect(try await script.get("/me", headers: Self.bearer(deploy)).text == "user")

            // "End sessions" ends the tokens too, though the look-up of the token was cached.
            #expect(try await ann.post("/admin/users/sign-out", form: ["username": "user"]).status == .seeOther)
            #expect(try await script.get("/me", headers: Self.bearer(deploy)).status == .unauthorized)

            // So do "Set password" and "Disable"; "Enable" brings none back.
            for action in ["password", "disable"] {
                var password = action == "password" ? "secret123" : "a brand new one 42"
                clock.advance(seconds: 1)
                let fresh = TestClient(app)
                try await fresh.signIn("user", password)
                if action == "disable" {
                    // The admin set it just before: no token until the user chose their own.
                    let refused = try await fresh.post("/account/tokens", form: ["name": "early", "current_password": password])
                    #expect(refused.status == .seeOther && refused.location == "/account/password")
                    try await fresh.changePassword(from: password, to: "the user's own 43")
                    password = "the user's own 43"
                }
                let made = try await makeToken(fresh, name: action, password: password)
                #expect(try await script.get("/me", headers: Self.bearer(made)).text == "user")
                clock.advance(seconds: 1)
                let answer = try await ann.post("/admin/users/\(action)", form: ["username": "user", "new_password": "a brand new one 42"])
                #expect(answer.status == .seeOther, "\(action)")
                #expect(try await ann.post("/admin/users/enable", form: ["username": "user"]).status == .seeOther)
                #expect(try await script.get("/me", headers: Self.bearer(made)).status == .unauthorized, "\(action)")
            }
            // Revoke all.
            let fresh = TestClient(app)
            clock.advance(seconds: 1)
            try await fresh.signIn("user", "the user's own 43")
            let last = try await makeToken(fresh, name: "last", password: "the user's own 43")
            #expect(try await ann.post("/admin/users/tokens/revoke-all", form: ["username": "user"]).status == .seeOther)
            #expect(try await script.get("/me", headers: Self.bearer(last)).status == .unauthorized)
            #expect(try await fresh.get("/me").text == "user")
            let audit = try await ann.get("/admin/audit?user=user", headers: Self.json).text
            #expect(audit.contains("token_revoked"))
        }
    }

    @Test func aRolesChangeEndsSessionsForGoodAndSignOutEverywhereElseListsThisSession() async throws {
        try await withApp { app, clock in
            let ann = TestClient(app)
            try await ann.signIn("ann", "ann-password")
            try await ann.confirmAdmin("ann-password")
            #expect(try await ann.post("/admin/users/roles", form: ["username": "user", "roles": "admin"]).status == .seeOther)
            clock.advance(seconds: 1)
            let promoted = TestClient(app)
            try await promoted.signIn("user", "secret123")
            #expect(try await promoted.get("/admin/users").status == .ok)
            let cookie = try #require(promoted.cookies["micro.session"]?.value)
            clock.advance(seconds: 1)
            #expect(try await ann.post("/admin/users/roles", form: ["username": "user", "roles": ""]).status == .seeOther)
            clock.advance(seconds: 65)
            #expect(try await ann.post("/admin/users/roles", form: ["username": "user", "roles": "admin"]).status == .seeOther)
            let replay = TestClient(app)
            replay.setCookie("micro.session", cookie)
            #expect(try await replay.get("/me").text == "nobody")
            #expect(try await replay.get("/admin/users").status != .ok)

            // Sign out everywhere else: this browser goes on, and is listed.
            clock.advance(seconds: 1)
            let laptop = TestClient(app), phone = TestClient(app)
            try await laptop.signIn("user", "secret123")
            try await phone.signIn("user", "secret123")
            #expect(try await laptop.post("/account/sessions/sign-out-others", form: [:]).status == .seeOther)
            #expect(try await phone.get("/me").text == "nobody")
            #expect(try await laptop.get("/me").text == "user")
            struct Listed: Decodable { let current: Bool }
            #expect(try await laptop.get("/account/sessions", headers: Self.json).decode([Listed].self).map(\.current) == [true])
        }
    }
}
