import Foundation
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// Users carry roles; `authorize(role:)` and a group's `authorize(role:)` check them.
@Suite struct RolesTests {
    private func makeApp(_ users: any UserStore) -> App {
        let app = isolatedApp()
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        app.group("/admin") { admin in
            admin.authorize(role: "admin")
            admin.get("/users") { request in "users, for \(request.currentUser?.username ?? "?")" }
        }
        app.get("/reports") { request in
            try request.authorize(role: "reports")
            return "reports"
        }
        app.get("/flags") { request in
            try request.authorize(anyOf: "editor", "reports")
            return "flags"
        }
        app.get("/nobody") { request in
            try request.authorize(anyOf: [])
            return "nobody"
        }
        app.group("/desk") { desk in
            desk.authorize(anyOf: "editor", "admin")
            desk.get("/") { _ in "desk" }
        }
        app.addBuiltInTemplates(["menu": "{{#roles.reports}}reports {{/roles.reports}}{{^roles.admin}}no admin{{/roles.admin}}{{#roles.admin}}admin{{/roles.admin}}"])
        app.get("/menu") { request in try request.render("menu", layout: nil) }
        return app
    }

    private func signedIn(_ app: App, _ username: String, _ password: String = "pw") async throws -> TestClient {
        let client = TestClient(app)
        #expect(try await client.post("/signin", form: ["username": username, "password": password]).location == "/")
        return client
    }

    private func yamlUsers(_ folder: TemporaryFolder, annRoles: String = "[admin, reports]") throws -> YamlUserStore {
        let hash = try Password.hash("pw", cost: 4)
        try folder.write("users.yml", """
            users:
              - username: ann
                password_hash: \(hash)
                roles: \(annRoles)
              - username: bob
                password_hash: \(hash)
            """)
        return try YamlUserStore(file: folder.file("users.yml"))
    }

    @Test func aUserWithoutTheRoleGetsA403AndASignedOutOneIsSentToSignIn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = makeApp(try yamlUsers(folder))
        let ann = try await signedIn(app, "ann")
        #expect(try await ann.get("/admin/users").text == "users, for ann")
        #expect(try await ann.get("/reports").text == "reports")

        let bob = try await signedIn(app, "bob")
        for path in ["/admin/users", "/reports"] {
            let refused = try await bob.get(path)
            #expect(refused.status == .forbidden, "\(path)")
            #expect(refused.text.contains("You do not have access to this page"))
            let json = try await bob.get(path, headers: ["Accept": "application/json"])
            #expect(json.status == .forbidden && json.contentType?.hasPrefix("application/json") == true)
        }
        let stranger = TestClient(app)
        #expect(try await stranger.get("/admin/users?tab=1").location == "/signin")
        #expect(try await stranger.post("/signin", form: ["username": "ann", "password": "pw"]).location == "/admin/users?tab=1")
    }

    @Test func anyOfLetsInAHolderOfOneAndNamesThemAllToTheRest() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = makeApp(try yamlUsers(folder, annRoles: "[reports]"))
        let ann = try await signedIn(app, "ann")
        #expect(try await ann.get("/flags").text == "flags")
        #expect(try await ann.get("/nobody").status == .forbidden)
        let desk = try await ann.get("/desk/")
        #expect(desk.status == .forbidden)
        #expect(desk.text.contains("one of the roles &#39;editor&#39;, &#39;admin&#39;"))
        let bob = try await signedIn(app, "bob")
        let refused = try await bob.get("/flags", headers: ["Accept": "application/json"])
        #expect(refused.status == .forbidden)
        #expect(refused.text.contains("one of the roles 'editor', 'reports'"))
        #expect(try await TestClient(app).get("/flags").location == "/signin")
        #expect(try await TestClient(app).get("/desk/").location == "/signin")
    }

    @Test func templatesSeeTheRolesAsASet() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = makeApp(try yamlUsers(folder, annRoles: "[admin, reports]"))
        #expect(try await signedIn(app, "ann").get("/menu").text == "reports admin")
        #expect(try await signedIn(app, "bob").get("/menu").text == "no admin")
        #expect(try await TestClient(app).get("/menu").text == "no admin")
    }

    @Test func rolesComeFromTheYamlListAndAMistakeNamesTheLine() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(try yamlUsers(folder).find(username: "ann")?.user.roles == ["admin", "reports"])
        #expect(try yamlUsers(folder).find(username: "bob")?.user.roles == [])
        for (roles, message) in [
            ("admin", "must be a list"), ("[Admin]", "lowercase"), ("[\"ad min\"]", "lowercase"), ("[[admin]]", "must be a name"),
            ("[\"adm\u{0301}in\"]", "lowercase"),
        ] {
            let error = #expect(throws: ConfigurationError.self) { try yamlUsers(folder, annRoles: roles) }
            #expect(error?.message.contains("users.yml:4") == true, "\(roles): \(error?.message ?? "")")
            #expect(error?.message.contains(message) == true, "\(roles): \(error?.message ?? "")")
        }
    }

    @Test func sqliteKeepsRolesInItsColumnAndATableWithoutOneGetsItWhenRolesAreSaved() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // A table made before roles: no column. It still works, and gets one when needed.
        let path = folder.file("users.db")
        let writer = try await SqliteWriter(path)
        try await writer.execute("CREATE TABLE users (username TEXT NOT NULL UNIQUE COLLATE NOCASE, password_hash TEXT NOT NULL, name TEXT)")
        try await writer.execute("INSERT INTO users VALUES ('bob', '\(try Password.hash("pw", cost: 4))', NULL)")
        let store = try SqliteUserStore(path: path)
        #expect(try store.find(username: "bob")?.user.roles == [])
        try store.save(username: "ann", passwordHash: try Password.hash("pw", cost: 4), name: nil, roles: ["admin", "reports"])
        #expect(try store.find(username: "ann")?.user.roles == ["admin", "reports"])
        #expect(throws: UserStoreError.self) { try store.save(username: "eve", passwordHash: try Password.hash("pw", cost: 4), name: nil, roles: ["Admin"]) }

        let app = makeApp(store)
        let ann = try await signedIn(app, "ann")
        #expect(try await ann.get("/admin/users").text == "users, for ann")
        // Roles taken away by plain SQL end her session, as a new password would: her next
        // sign-in brings the roles the table has now.
        try await writer.execute("UPDATE users SET roles = 'reports' WHERE username = 'ann'")
        var signedOut = false
        for _ in 0..<100 where !signedOut {
            signedOut = try await ann.get("/admin/users").location == "/signin"
            if !signedOut { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(signedOut)
        let again = try await signedIn(app, "ann")
        #expect(try await again.get("/admin/users").status == .forbidden)
        #expect(try await again.get("/reports").text == "reports")
        // A malformed roles cell is an error naming the row, at start-up.
        try await writer.execute("UPDATE users SET roles = 'ad;min' WHERE username = 'bob'")
        let error = #expect(throws: ConfigurationError.self) { try SqliteUserStore(path: path) }
        #expect(error?.message.contains("user 'bob'") == true)
    }

    @Test func aSessionFromBeforeRolesStaysSignedIn() throws {
        // Sessions written before users had roles keep their user and their stamp.
        let old = try JSONDecoder().decode(User.self, from: Data(#"{"username":"ann","name":"Ann"}"#.utf8))
        #expect(old == User(username: "ann", name: "Ann"))
        #expect(String(decoding: try JSONEncoder().encode(old), as: UTF8.self).contains("roles") == false)
        #expect(CredentialStamp(username: "ann", passwordHash: "h", roles: []) == CredentialStamp(username: "ann", passwordHash: "h"))
        #expect(CredentialStamp(username: "ann", passwordHash: "h", roles: ["admin"]) != CredentialStamp(username: "ann", passwordHash: "h"))
        #expect(CredentialStamp(username: "ann", passwordHash: "h", roles: ["a", "b"]) == CredentialStamp(username: "ann", passwordHash: "h", roles: ["b", "a"]))
    }
}
