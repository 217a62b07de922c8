import Foundation
import Micro
import MicroTestSupport
import MicroTesting
import Testing
@testable import SampleApp

/// The script examples with an API token of "The sample app, step by step": SampleApp with its users in SQLite, as
/// `MICRO_USERS_DB` serves it (the account pages' tables beside them, tokens on).
@Suite struct ApiTokenScriptTests {
    @Test func aScriptUsesTheToolsWithAToken() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-sample-tokens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let users = try SqliteUserStore(path: folder.appendingPathComponent("users.db").path, create: true)
        try users.save(username: "user", passwordHash: try Password.hash("secret123", cost: 4), name: "User", roles: ["admin"])
        let database = try await Database.sqlite(path: folder.appendingPathComponent("users.db").path)
        var settings = Settings()
        settings.environment = .test
        settings.accessLog = false
        let app = App(settings: settings, logger: .quietForTests)
        SampleRoutes.install(in: app, users: users, accounts: Accounts(database: database), signInHasher: testSignInHasher)
        let browser = TestClient(app)
        _ = try await browser.signIn("user", "secret123")
        #expect(try await browser.get("/account").text.contains("/account/tokens"))
        let made = try await browser.post("/account/tokens", form: ["name": "nightly report", "expires_in_days": "30", "scopes": "write", "current_password": "secret123"])
        let range = try #require(made.text.range(of: #"data-token="micro_[A-Za-z0-9_-]+""#, options: .regularExpression))
        let token = String(made.text[range].dropFirst("data-token=\"".count).dropLast())
        let script = TestClient(app)
        script.sendsCsrfToken = false
        let headers: HttpHeaders = ["Authorization": "Bearer " + token, "Accept": "application/json"]
        let encoded = try await script.get("/tools/data-encoding?op=base64-encode&input=foobar", headers: headers)
        #expect(encoded.status == .ok && encoded.text == #"{"result":"Zm9vYmFy"}"#)
        let hashed = try await script.post("/tools/data-encryption", form: ["op": "sha256", "input": "abc"], headers: headers)
        #expect(hashed.text.contains("ba7816bf"))
        #expect(try await script.get("/admin/users", headers: headers).status == .ok)
        #expect(script.cookies.isEmpty)
        await database.shutdown()
    }
}
