import Foundation
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// A sign-in that re-hashes a password stored at another cost keeps the session it signs in,
/// on this instance and on another over the same users table, before and after that one has
/// read the new hash.
@Suite struct PasswordRehashTests {
    private static let secret = String(repeating: "r", count: 40)

    private func makeApp(_ users: SqliteUserStore) -> App {
        let app = isolatedApp { $0.sessions.secret = Self.secret }
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        app.get("/me") { request in request.currentUser?.username ?? "nobody" }
        return app
    }

    @Test func aReHashKeepsTheSessionOnBothInstances() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let one = try SqliteUserStore(path: folder.file("users.db"), create: true)
        let imported = try Password.hash("secret123", cost: 5)
        try one.save(username: "user", passwordHash: imported, name: nil)
        let two = try SqliteUserStore(path: folder.file("users.db"))
        let browser = TestClient(makeApp(one))
        let elsewhere = TestClient(makeApp(two))
        try await browser.signIn("user", "secret123")
        let rehashed = try #require(try one.find(username: "user")?.passwordHash)
        #expect(Password.cost(of: rehashed) == 4)
        let cookie = try #require(browser.cookies["micro.session"]?.value)
        elsewhere.setCookie("micro.session", cookie)
        // The other instance may still hold the old hash (it reads the table again about once
        // a second): the session stands there too.
        #expect(try await elsewhere.get("/me").text == "user")
        #expect(try await browser.get("/me").text == "user")
        // Once it has read the new one, still.
        try two.reload()
        #expect(two.isCurrent(CredentialStamp(username: "user", passwordHash: rehashed), username: "user"))
        #expect(try await elsewhere.get("/me").text == "user")
        #expect(try await browser.get("/me").text == "user")
        // A new password ends it on both.
        try one.save(username: "user", passwordHash: try Password.hash("another one 42", cost: 4), name: nil)
        try two.reload()
        #expect(try await browser.get("/me").text == "nobody")
        #expect(try await elsewhere.get("/me").text == "nobody")
    }
}
