import Foundation
import Micro
import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// A script's `401` names what the app accepts and nothing else: HTTP Basic, API tokens, both,
/// or neither.
@Suite struct ApiChallengeTests {
    private static let json: HttpHeaders = ["Accept": "application/json"]

    private func app(basic: Bool, tokens: Bool) throws -> (App, TemporaryFolder) {
        let folder = try TemporaryFolder()
        let app = isolatedApp()
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann", roles: [])
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.acceptsBasicCredentials = basic
        app.use(authentication)
        var accounts = Accounts()
        if tokens { accounts.apiTokens.store = MemoryApiTokenStore() }
        app.use(accounts)
        app.get("/me") { request in ["user": try request.authenticate().username] }
        return (app, folder)
    }

    @Test func basicAndTokensAreBothNamed() async throws {
        let (app, folder) = try app(basic: true, tokens: true)
        defer { folder.remove() }
        let refused = try await TestClient(app).get("/me", headers: Self.json)
        #expect(refused.status == .unauthorized)
        #expect(refused.headers.first(name: "WWW-Authenticate") == #"Basic realm="Micro", charset="UTF-8", Bearer realm="Micro""#)
        #expect(refused.text.contains("HTTP Basic authentication or an API token (Authorization: Bearer)"), "\(refused.text)")
    }

    @Test func aTokenOnlyApiChallengesForATokenOnly() async throws {
        let (app, folder) = try app(basic: false, tokens: true)
        defer { folder.remove() }
        let script = TestClient(app)
        let refused = try await script.get("/me", headers: Self.json)
        #expect(refused.status == .unauthorized)
        #expect(refused.headers.first(name: "WWW-Authenticate") == #"Bearer realm="Micro""#)
        #expect(refused.text.contains("send an API token (Authorization: Bearer)"))
        #expect(!refused.text.contains("username and password"))
        // Basic credentials, right ones too, are not looked at: the same challenge.
        let basic = "Basic " + Data("ann:ann-password".utf8).base64EncodedString()
        let withBasic = try await script.get("/me", headers: ["Accept": "application/json", "Authorization": basic])
        #expect(withBasic.status == .unauthorized)
        #expect(withBasic.headers.first(name: "WWW-Authenticate") == #"Bearer realm="Micro""#)
        // A wrong token: the token's own refusal.
        let wrong = try await script.get("/me", headers: ["Accept": "application/json", "Authorization": "Bearer micro_nothing"])
        #expect(wrong.status == .unauthorized)
        #expect(wrong.headers.first(name: "WWW-Authenticate")?.hasPrefix(#"Bearer realm="Micro", error="invalid_token""#) == true)
    }

    @Test func neitherMeansSessionsOnly() async throws {
        let (app, folder) = try app(basic: false, tokens: false)
        defer { folder.remove() }
        let refused = try await TestClient(app).get("/me", headers: Self.json)
        #expect(refused.status == .unauthorized)
        #expect(refused.headers.first(name: "WWW-Authenticate") == nil)
        #expect(refused.text.contains("signed-in sessions only"))
    }
}
