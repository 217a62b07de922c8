import Foundation
import Micro
import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// API tokens and the admin's users page: a disabled user's tokens admit nobody, and a user
/// removed then added again under the same name inherits neither tokens nor second factor.
@Suite struct ApiTokenUserChangeTests {
    private static func bearer(_ token: String) -> HttpHeaders {
        ["Accept": "application/json", "Authorization": "Bearer " + token]
    }

    @Test func disabledAndRemovedUsersTokensAdmitNobodyAndANewUserOfTheNameInheritsNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = isolatedApp()
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann Smith", roles: ["admin"])
        try users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        let database = try await Database.sqlite(path: folder.file("app.db"))
        app.use(Accounts(database: database))
        app.get("/me") { request in ["user": try request.authenticate().username] }

        let owner = TestClient(app)
        try await owner.signIn("user", "secret123")
        let made = try await owner.post("/account/tokens", form: ["name": "deploy", "current_password": "secret123"])
        let range = try #require(made.text.range(of: #"data-token="micro_[A-Za-z0-9_-]+""#, options: .regularExpression))
        let token = String(made.text[range].dropFirst("data-token=\"".count).dropLast())
        let script = TestClient(app)
        #expect(try await script.get("/me", headers: Self.bearer(token)).status == .ok)

        let admin = TestClient(app)
        try await admin.signIn("ann", "ann-password")
        try await admin.confirmAdmin("ann-password")
        #expect(try await admin.post("/admin/users/disable", form: ["username": "user"]).status == .seeOther)
        #expect(try await script.get("/me", headers: Self.bearer(token)).status == .unauthorized)

        #expect(try await admin.post("/admin/users/remove", form: ["username": "user"]).status == .seeOther)
        #expect(try await script.get("/me", headers: Self.bearer(token)).status == .unauthorized)
        let added = try await admin.post(
            "/admin/users/add", form: ["new_username": "user", "name": "", "roles": "", "password": "a new person's passphrase"])
        #expect(added.status == .seeOther, "\(added.text.suffix(300))")
        #expect(try await script.get("/me", headers: Self.bearer(token)).status == .unauthorized)
        let rows = try await database.run("count") { sql in
            try await sql.raw("SELECT count(*) AS n FROM micro_api_tokens").first(decodingColumn: "n", as: Int.self)
        }
        #expect(rows == 0)
        await database.shutdown()
    }
}
