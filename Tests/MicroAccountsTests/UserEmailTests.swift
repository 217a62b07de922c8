import Foundation
import Micro
import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// Users' email addresses: given on the users page (added or changed), kept by SQLite tables
/// old and new and by credentials.yml, each checked as an address, none two users' at once.
@Suite struct UserEmailTests {
    private func makeApp(_ folder: TemporaryFolder) throws -> (App, SqliteUserStore) {
        let app = isolatedApp()
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann Smith", roles: ["admin"], email: "ann@example.com")
        try users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        app.use(Accounts())
        return (app, users)
    }

    private static let json: HttpHeaders = ["Accept": "application/json"]

    @Test func theUsersPageAddsAndChangesAddressesAndRefusesBadOrTakenOnes() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, users) = try makeApp(folder)
        let ann = TestClient(app)
        try await ann.signIn("ann", "ann-password")
        try await ann.confirmAdmin("ann-password")
        func add(_ name: String, _ email: String) async throws -> TestResponse {
            try await ann.post("/admin/users/add", form: ["new_username": name, "password": "typed by ann 5", "roles": "", "email": email])
        }
        // A header injection, another script's look-alike letters, a second address: each refused, nothing added.
        for hostile in ["bob@example.com\r\nBcc: eve@example.com", "bob@ex\u{0430}mple.com", "bob@example.com, eve@example.com", "b\u{202E}ob@example.com"] {
            let refused = try await add("bob", hostile)
            #expect(refused.status == .unprocessableEntity, "\(hostile)")
            #expect(!refused.text.contains("\r\nBcc"))
        }
        #expect(try users.find(username: "bob") == nil)
        let taken = try await add("bob", "ANN@Example.com")
        #expect(taken.status == .unprocessableEntity && taken.text.contains("Another user has that email address."))
        #expect(try await add("bob", " bob@example.com ").status == .seeOther)
        #expect(try users.find(username: "bob")?.user.email == "bob@example.com")

        let listed = try JSONSerialization.jsonObject(with: Data(try await ann.get("/admin/users", headers: Self.json).body)) as? [[String: Any]] ?? []
        #expect(listed.first { $0["username"] as? String == "bob" }?["email"] as? String == "bob@example.com")
        #expect(listed.first { $0["username"] as? String == "user" }?["email"] == nil)

        // Changing: to a free address, to a taken one (refused, kept), to none.
        #expect(try await ann.post("/admin/users/email", form: ["username": "user", "email": "User@Example.org"]).status == .seeOther)
        #expect(try users.find(username: "user")?.user.email == "User@Example.org")
        let clash = try await ann.post("/admin/users/email", form: ["username": "bob", "email": "user@example.org"])
        #expect(clash.status == .unprocessableEntity && clash.text.contains("Another user has that email address."))
        #expect(try users.find(username: "bob")?.user.email == "bob@example.com")
        let bad = try await ann.post("/admin/users/email", form: ["username": "bob", "email": "bob\n@example.com"])
        #expect(bad.status == .unprocessableEntity && bad.text.contains("control character"))
        #expect(try await ann.post("/admin/users/email", form: ["username": "bob", "email": ""]).status == .seeOther)
        #expect(try users.find(username: "bob")?.user.email == nil)
        #expect(try await ann.post("/admin/users/email", form: ["username": "nobody", "email": "x@example.com"]).status == .notFound)
        let audit = try await ann.get("/admin/audit?user=user", headers: Self.json).text
        #expect(audit.contains("email_changed") && audit.contains("User@Example.org by ann"))
    }

    @Test func aTableMadeBeforeAddressesGetsTheirColumnsAtItsFirstChange() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Database.sqlite(path: folder.file("users.db"))
        try await database.sql.raw("CREATE TABLE users (username TEXT NOT NULL UNIQUE COLLATE NOCASE, password_hash TEXT NOT NULL, name TEXT)").run()
        try await database.sql.raw("INSERT INTO users (username, password_hash) VALUES ('ann', \(bind: TestHashes.annPassword))").run()
        await database.shutdown()
        let users = try SqliteUserStore(path: folder.file("users.db"))
        #expect(try users.find(username: "ann")?.user.email == nil)
        #expect(try users.find(username: "ann")?.passwordChangeDue == false)
        #expect(try await users.setEmail(of: "ann", to: "ann@example.com") == .done)
        try users.save(username: "bob", passwordHash: TestHashes.secret123, name: nil, email: "bob@example.com", passwordChangeDue: true)
        #expect(try users.find(username: "bob")?.passwordChangeDue == true)
        #expect(try await users.setEmail(of: "bob", to: "ANN@example.com") == .taken)
        // A second add-user of bob without an address keeps the one he has.
        try users.save(username: "bob", passwordHash: TestHashes.secret123, name: nil)
        #expect(try users.find(username: "bob")?.user.email == "bob@example.com")
        await users.shutdown()
    }

    @Test func aMalformedAddressWrittenByHandIsNamedWithItsRow() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: nil)
        await users.shutdown()
        let database = try await Database.sqlite(path: folder.file("users.db"))
        try await database.sql.raw("UPDATE users SET email = 'ann@example.com\nBcc: eve@example.com'").run()
        await database.shutdown()
        #expect { _ = try SqliteUserStore(path: folder.file("users.db")) } throws: { error in
            "\(error)".contains("users row 1 (user 'ann'): email: an email address cannot hold a control character")
        }
    }

    @Test func credentialsYmlTakesAnAddressAndNamesTheLineOfABadOne() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.write("credentials.yml", """
            users:
              - username: ann
                password_hash: \(TestHashes.annPassword)
                email: ann@example.com
            """)
        #expect(try YamlUserStore(file: folder.file("credentials.yml")).find(username: "ann")?.user.email == "ann@example.com")
        try folder.write("bad.yml", """
            users:
              - username: ann
                password_hash: \(TestHashes.annPassword)
                email: "ann@example.com\\r\\nBcc: eve@example.com"
            """)
        #expect(throws: ConfigurationError.self) { try YamlUserStore(file: folder.file("bad.yml")) }
        try folder.write("shared.yml", """
            users:
              - username: ann
                password_hash: \(TestHashes.annPassword)
                email: ann@example.com
              - username: bob
                password_hash: \(TestHashes.annPassword)
                email: ANN@example.com
            """)
        #expect { _ = try YamlUserStore(file: folder.file("shared.yml")) } throws: { error in
            "\(error)".contains("shared.yml:5: user 'bob' has the email address of user 'ann'")
        }
        #expect { _ = try YamlUserStore(file: folder.file("bad.yml")) } throws: { error in
            "\(error)".contains("bad.yml:4: the email of user 'ann': an email address cannot hold a control character (U+000D)")
        }
    }
}
