import Foundation
import Micro
import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// The admin's users page over a real SQLite file: each change, who may make it, the last
/// admin kept, and what a change does to the user's sessions and sign-ins.
@Suite struct UserAdminTests {
    /// An app over `users.db` in `folder`: `ann` (admin, ann-password) and `user` (secret123).
    private func makeApp(_ folder: TemporaryFolder, clock: TestClock, store: SqliteUserStore? = nil) throws -> (App, SqliteUserStore) {
        try folder.write("views/layout.mustache", "<main>{{#flashMessages}}<p class=\"flash\">{{message}}</p>{{/flashMessages}}{{{yield}}}</main>")
        let app = isolatedApp {
            $0.views = folder.file("views")
            $0.clock = { clock.now }
        }
        let users: SqliteUserStore
        if let store {
            users = store
        } else {
            users = try SqliteUserStore(path: folder.file("users.db"), create: true)
            try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann Smith", roles: ["admin"])
            try users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
        }
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        app.use(Accounts())
        app.get("/me") { request in try request.authenticate().username }
        // A way of signing in beside the password (single sign-on), for the user the store holds.
        app.post("/sso/:name") { request in
            let name = request.params["name"] ?? ""
            guard let stored = try users.find(username: name) else { throw HttpError(.notFound) }
            try await request.signIn(stored.user, credentialStamp: CredentialStamp(stored), via: "test")
            return "signed in"
        }
        return (app, users)
    }

    private static let json: HttpHeaders = ["Accept": "application/json"]

    private func basic(_ name: String, _ password: String) -> HttpHeaders {
        ["Authorization": "Basic " + Data("\(name):\(password)".utf8).base64EncodedString(), "Accept": "application/json"]
    }

    private func audit(_ client: TestClient, user: String) async throws -> [[String: String]] {
        let answer = try await client.get("/admin/audit?user=" + PercentEncoding.encode(user), headers: Self.json)
        let events = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [[String: Any]] ?? []
        return events.map { $0.compactMapValues { $0 as? String } }
    }

    @Test func onlyAdminsReachThePageAndEveryPostNeedsTheCsrfToken() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, _) = try makeApp(folder, clock: TestClock(Date()))
        let stranger = TestClient(app)
        #expect(try await stranger.get("/admin/users").location == "/signin")
        #expect(try await stranger.get("/admin/users", headers: Self.json).status == .unauthorized)
        let user = TestClient(app)
        try await user.signIn("user", "secret123")
        #expect(try await user.get("/admin/users").status == .forbidden)
        for action in ["add", "password", "roles", "disable", "enable", "remove", "sign-out"] {
            let refused = try await user.post("/admin/users/\(action)", form: ["username": "ann", "new_username": "eve", "password": "a fine password 1"])
            #expect(refused.status == .forbidden, "\(action)")
        }
        let ann = TestClient(app)
        try await ann.signIn("ann", "ann-password")
        try await ann.confirmAdmin("ann-password")
        ann.sendsCsrfToken = false
        #expect(try await ann.post("/admin/users/disable", form: ["username": "user"]).status == .forbidden)
        ann.sendsCsrfToken = true
        #expect(try await user.get("/me").text == "user")
        // A name that is no user's, or none at all: a 404, never a 500.
        #expect(try await ann.post("/admin/users/disable", form: ["username": "\u{1B}[2Jx"]).status == .notFound)
        #expect(try await ann.post("/admin/users/remove", form: [:]).status == .notFound)
        #expect(try await ann.post("/admin/users/sign-out", form: ["username": "nobody"]).status == .notFound)
        #expect(try await ann.post("/admin/users/enable", form: ["username": String(repeating: "x", count: 100_000)]).status == .notFound)
        let page = try await ann.get("/admin/users")
        #expect(page.status == .ok)
        #expect(page.text.contains(#"<tr data-user="user"><td>user</td><td>User</td><td>none</td>"#))
        #expect(page.text.contains(#"action="/admin/users/add""#) && !page.text.contains("$2"))
        struct Listed: Decodable, Equatable { let username: String, name: String, roles: [String], disabled: Bool }
        #expect(try await ann.get("/admin/users", headers: Self.json).decode([Listed].self) == [
            Listed(username: "ann", name: "Ann Smith", roles: ["admin"], disabled: false),
            Listed(username: "user", name: "User", roles: [], disabled: false),
        ])
    }

    @Test func addingAUserChecksTheNameThePasswordAndTheRoles() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, store) = try makeApp(folder, clock: TestClock(Date()))
        let ann = TestClient(app)
        try await ann.signIn("ann", "ann-password")
        try await ann.confirmAdmin("ann-password")
        func add(_ name: String, display: String = "Bob Brown", roles: String = "editor", password: String = "correct horse 7") async throws -> TestResponse {
            try await ann.post("/admin/users/add", form: ["new_username": name, "name": display, "roles": roles, "password": password])
        }
        // Refusals: 422, the message, what was typed kept but never the password.
        let common = try await add("bob", password: "password1")
        #expect(common.status == .unprocessableEntity)
        #expect(common.text.contains(#"value="Bob Brown""#) && common.text.contains(#"value="bob""#))
        #expect(!common.text.contains("password1"))
        #expect(try await add("bob", password: "bob").status == .unprocessableEntity)
        #expect(try await add("USER").text.contains("There is already a user of that name."))
        #expect(try await add("bob", roles: "Editor!").text.contains("Roles are names"))
        #expect(try await add("bob", display: "Bob\u{202E}nworB").status == .unprocessableEntity)
        // Hostile names: a control, the Kelvin sign, a space, and a Cyrillic look-alike of `ann`.
        for hostile in ["bo\u{1B}[31mb", "\u{212A}ate", "bob brown", "\u{430}nn", "a:b", String(repeating: "b", count: 300)] {
            let refused = try await add(hostile)
            #expect(refused.status == .unprocessableEntity, "\(hostile)")
            #expect(!refused.text.contains("\u{1B}"))
        }
        #expect(try await add("\u{430}nn").text.contains("looks like the existing user"))
        #expect(try store.count() == 2)
        // Combining marks: `e` + U+0301 is kept as `é`; `ÉMILE` is then the same user.
        let added = try await add("e\u{301}mile", display: "Émile Zola", roles: "editor, reviewer")
        #expect(added.status == .seeOther && added.location == "/admin/users")
        #expect(try await ann.get("/admin/users").text.contains("émile has been added."))
        #expect(try store.find(username: "ÉMILE")?.user == User(username: "émile", name: "Émile Zola", roles: ["editor", "reviewer"]))
        #expect(try await add("\u{C9}MILE").text.contains("There is already a user of that name."))
        let emile = TestClient(app)
        try await emile.signIn("ÉMILE", "correct horse 7")
        // The admin typed the password: it opens nothing but the page that changes it.
        let led = try await emile.get("/me")
        #expect(led.status == .found && led.location == "/account/password")
        #expect(try await emile.get("/me", headers: ["Accept": "application/json"]).status == .forbidden)
        try await emile.changePassword(from: "correct horse 7", to: "émile's own choice 8")
        #expect(try await emile.get("/me").text == "émile")
        let events = try await audit(ann, user: "émile")
        #expect(events.contains { $0["event"] == "user_added" && $0["detail"] == "by ann" && $0["user"] == "émile" })
    }

    @Test func aNewPasswordEndsTheUsersSessions() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock(Date())  // now: the activity log keeps 90 days of the real clock
        let (app, _) = try makeApp(folder, clock: clock)
        let ann = TestClient(app)
        try await ann.signIn("ann", "ann-password")
        try await ann.confirmAdmin("ann-password")
        let user = TestClient(app)
        try await user.signIn("user", "secret123")
        let weak = try await ann.post("/admin/users/password", form: ["username": "user", "new_password": "12345678"])
        #expect(weak.status == .unprocessableEntity && weak.text.contains("user: "))
        #expect(try await user.get("/me").text == "user")
        #expect(try await ann.post("/admin/users/password", form: ["username": "nobody", "new_password": "a fresh start 9"]).status == .notFound)
        let set = try await ann.post("/admin/users/password", form: ["username": "USER", "new_password": "a fresh start 9"])
        #expect(set.status == .seeOther)
        #expect(try await user.get("/me").location == "/signin")
        clock.advance(seconds: 1)
        await #expect(throws: TestClientError.self) { try await TestClient(app).signIn("user", "secret123") }
        try await TestClient(app).signIn("user", "a fresh start 9")
        #expect(try await audit(ann, user: "user").contains { $0["event"] == "password_reset" && $0["detail"] == "by ann" })
        #expect(try await ann.get("/me").text == "ann")
    }

    @Test func newRolesEndTheSessionsAndComeWithTheNextSignIn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock(Date())  // now: the activity log keeps 90 days of the real clock
        let (app, _) = try makeApp(folder, clock: clock)
        let ann = TestClient(app)
        try await ann.signIn("ann", "ann-password")
        try await ann.confirmAdmin("ann-password")
        let user = TestClient(app)
        try await user.signIn("user", "secret123")
        let bad = try await ann.post("/admin/users/roles", form: ["username": "user", "roles": "admin <b>"])
        #expect(bad.status == .unprocessableEntity)
        #expect(bad.text.contains(#"value="admin &lt;b&gt;""#))
        #expect(try await ann.post("/admin/users/roles", form: ["username": "user", "roles": "editor admin"]).status == .seeOther)
        #expect(try await user.get("/me").location == "/signin")
        clock.advance(seconds: 1)
        try await user.signIn("user", "secret123")
        #expect(try await user.get("/admin/users").status == .ok)
        #expect(try await audit(ann, user: "user").contains { $0["event"] == "roles_changed" && $0["detail"] == "editor admin by ann" })
    }

    @Test func aDisabledUserCannotSignInByAnyMeansAndOldCookiesStayDead() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock(Date())  // now: the activity log keeps 90 days of the real clock
        let (app, store) = try makeApp(folder, clock: clock)
        let ann = TestClient(app)
        try await ann.signIn("ann", "ann-password")
        try await ann.confirmAdmin("ann-password")
        let user = TestClient(app)
        try await user.signIn("user", "secret123")
        let script = TestClient(app)
        #expect(try await script.get("/me", headers: basic("user", "secret123")).text == "user")
        #expect(try await ann.post("/admin/users/disable", form: ["username": "user"]).status == .seeOther)
        #expect(try store.find(username: "user")?.isDisabled == true)
        #expect(try await ann.get("/admin/users").text.contains(#"<tr data-user="user" data-disabled>"#))
        // The session, the password, HTTP Basic (cached or not) and single sign-on: all refused.
        #expect(try await user.get("/me").location == "/signin")
        #expect(try await script.get("/me", headers: basic("user", "secret123")).status == .unauthorized)
        clock.advance(seconds: 1)
        await #expect(throws: TestClientError.self) { try await TestClient(app).signIn("user", "secret123") }
        let sso = TestClient(app)
        #expect(try await sso.post("/sso/user", form: [:]).status == .forbidden)
        #expect(try await sso.get("/me").location == "/signin")
        // Enabled again: the password works, but no cookie from before comes back.
        clock.advance(seconds: 1)
        #expect(try await ann.post("/admin/users/enable", form: ["username": "user"]).status == .seeOther)
        #expect(try await user.get("/me").location == "/signin")
        clock.advance(seconds: 1)
        let again = TestClient(app)
        try await again.signIn("user", "secret123")
        #expect(try await again.get("/me").text == "user")
        let events = try await audit(ann, user: "user").map { $0["event"] ?? "" }
        #expect(events.contains("user_disabled") && events.contains("user_enabled"))
    }

    @Test func aRemovedUsersCookieOpensNothingAndEndingSessionsEndsThemAll() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock(Date())  // now: the activity log keeps 90 days of the real clock
        let (app, store) = try makeApp(folder, clock: clock)
        let ann = TestClient(app)
        try await ann.signIn("ann", "ann-password")
        try await ann.confirmAdmin("ann-password")
        let laptop = TestClient(app)
        let phone = TestClient(app)
        try await laptop.signIn("user", "secret123")
        try await phone.signIn("user", "secret123")
        #expect(try await ann.post("/admin/users/sign-out", form: ["username": "user"]).status == .seeOther)
        #expect(try await laptop.get("/me").location == "/signin")
        #expect(try await phone.get("/me").location == "/signin")
        clock.advance(seconds: 1)
        try await laptop.signIn("user", "secret123")
        #expect(try await ann.post("/admin/users/remove", form: ["username": "user"]).status == .seeOther)
        #expect(try await laptop.get("/me").location == "/signin")
        #expect(try store.find(username: "user") == nil)
        #expect(try await ann.post("/admin/users/remove", form: ["username": "user"]).status == .notFound)
        let events = try await audit(ann, user: "user")
        #expect(events.contains { $0["event"] == "sessions_ended" && $0["detail"] == "by ann" })
        #expect(events.contains { $0["event"] == "user_removed" && $0["detail"] == "by ann" })
    }

    @Test func theLastEnabledAdminCannotBeRemovedDisabledOrDemoted() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, store) = try makeApp(folder, clock: TestClock(Date()))
        let ann = TestClient(app)
        try await ann.signIn("ann", "ann-password")
        try await ann.confirmAdmin("ann-password")
        for (action, extra) in [("remove", ""), ("disable", ""), ("roles", "editor")] {
            let refused = try await ann.post("/admin/users/\(action)", form: ["username": "ann", "roles": extra])
            #expect(refused.status == .unprocessableEntity, "\(action)")
            #expect(refused.text.contains("That would leave no enabled admin"), "\(action)")
        }
        #expect(try await ann.post("/admin/users/roles", form: ["username": "ann", "roles": "editor"], headers: Self.json).status == .unprocessableEntity)
        #expect(try store.find(username: "ann")?.user.roles == ["admin"])
        // A disabled admin does not count; an enabled one does.
        _ = try await store.addUser(username: "bob", name: nil, roles: ["admin"], passwordHash: TestHashes.secret123)
        #expect(try await store.setDisabled(true, username: "bob", keepingOne: "admin") == .done)
        #expect(try await store.setRoles(of: "ann", to: [], keepingOne: "admin") == .lastAdmin)
        #expect(try await store.setDisabled(false, username: "bob", keepingOne: "admin") == .done)
        #expect(try await ann.post("/admin/users/roles", form: ["username": "ann", "roles": "editor"]).status == .seeOther)
        #expect(try await store.setDisabled(true, username: "bob", keepingOne: "admin") == .lastAdmin)
        // A role named with `_` is matched as itself, not as a LIKE wildcard: `opsxlead` is another role.
        #expect(try await store.setRoles(of: "user", to: ["ops_lead"], keepingOne: "ops_lead") == .done)
        #expect(try await store.setRoles(of: "ann", to: ["opsxlead"], keepingOne: "ops_lead") == .done)
        #expect(try await store.setRoles(of: "user", to: [], keepingOne: "ops_lead") == .lastAdmin)
        #expect(try await store.setRoles(of: "user", to: ["editor", "ops_lead"], keepingOne: "ops_lead") == .done)
        #expect(try await store.setRoles(of: "nobody", to: [], keepingOne: "ops_lead") == .noSuchUser)
    }

    @Test func aUsersFileIsListedWithoutForms() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.writeUsers("credentials.yml", [("user", TestHashes.secret123, nil)])
        try folder.write("credentials.yml", try String(contentsOfFile: folder.file("credentials.yml"), encoding: .utf8) + "    roles: [admin]\n")
        let app = isolatedApp()
        var authentication = Authentication(users: try YamlUserStore(file: folder.file("credentials.yml")))
        authentication.passwordCost = 4
        app.use(authentication)
        app.use(Accounts())
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        let page = try await client.get("/admin/users")
        #expect(page.status == .ok)
        #expect(page.text.contains("<td>user</td><td>User</td><td>admin</td>"))
        #expect(page.text.contains("managed in credentials.yml"))
        #expect(!page.text.contains(#"action="/admin/users/"#))
        #expect(try await client.post("/admin/users/disable", form: ["username": "user"]).status == .forbidden)
    }

    @Test func aUsersFileOfAnEarlierVersionIsManaged() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // A table made before users had roles, by plain SQL.
        let writer = try await SqliteWriter(folder.file("users.db"))
        try await writer.execute("CREATE TABLE users (username TEXT NOT NULL UNIQUE COLLATE NOCASE, password_hash TEXT NOT NULL, name TEXT)")
        try await writer.execute("INSERT INTO users VALUES ('user', '\(TestHashes.secret123)', NULL)")
        let store = try SqliteUserStore(path: folder.file("users.db"))
        #expect(try await store.setRoles(of: "user", to: ["admin"], keepingOne: "admin") == .done)
        #expect(try await store.setDisabled(true, username: "user", keepingOne: "admin") == .lastAdmin)
        #expect(try await store.addUser(username: "ann", name: "Ann", roles: ["admin"], passwordHash: TestHashes.annPassword))
        #expect(try await store.setDisabled(true, username: "user", keepingOne: "admin") == .done)
        // Another store opening the file reads the disabled user's row, and refuses their password.
        let reopened = try SqliteUserStore(path: folder.file("users.db"))
        #expect(try reopened.find(username: "user")?.isDisabled == true)
        #expect(try await reopened.managedUsers().map(\.isDisabled) == [false, true])
        #expect(try await store.setPasswordHash(of: "user", to: TestHashes.annPassword))
        #expect(try reopened.find(username: "user")?.passwordHash == "!" + TestHashes.annPassword)
    }
}
