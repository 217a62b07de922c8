import Foundation
import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// What MicroTesting gives a tool's tests for its accounts: two-factor turned on, a sign-in
/// with a second factor, an API token for a script, a throwaway database.
@Suite struct TestClientAccountsTests {
    @Test func signsInWithASecondFactorAndMakesATokenForAScript() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let tests = TwoFactorTests()
        let (app, database) = try await tests.makeApp(folder, clock: clock)
        defer { Task { await database.shutdown() } }
        let owner = TestClient(app)
        try await owner.signIn("ann", "ann-password")
        // A wrong password, or a wrong code, and two-factor stays off.
        await #expect(throws: TestClientError.self) {
            try await owner.turnOnTwoFactor(password: "wrong") { _ in "000000" }
        }
        await #expect(throws: TestClientError.self) {
            try await owner.turnOnTwoFactor(password: "ann-password") { _ in "not a code" }
        }
        let (totp, codes) = try await tests.turnOn(owner, password: "ann-password", clock: clock)
        #expect(codes.count == 10)
        clock.advance(seconds: 30)

        let refused = TestClient(app)
        await #expect(throws: TestClientError.self) { try await refused.signIn("ann", "ann-password", code: "not a code") }
        #expect(try await refused.get("/me").status == .found)

        let client = TestClient(app)
        try await client.signIn("ann", "ann-password", code: totp.code(at: tests.now(clock)))
        #expect(try await client.get("/me").text == "ann")

        // As turning two-factor off does, a token asks for a code beside the password.
        await #expect(throws: TestClientError.self) { try await client.makeApiToken(name: "robot", password: "ann-password") }
        clock.advance(seconds: 30)
        let token = try await client.makeApiToken(name: "robot", password: "ann-password", code: totp.code(at: tests.now(clock)))
        #expect(token.hasPrefix("micro_"))
        let robot = TestClient(app)
        // Tokens are for scripts: requests that ask for JSON.
        let answer = try await robot.get("/me", headers: ["Authorization": "Bearer \(token)", "Accept": "application/json"])
        #expect(answer.status == .ok && answer.text.contains("ann"), "\(answer.status) \(answer.text)")
        await #expect(throws: TestClientError.self) { try await client.makeApiToken(password: "wrong") }
    }

    @Test func eachThrowawayDatabaseIsNewAndGoneAfter() async throws {
        var path = ""
        try await withThrowawayDatabase { database in
            path = database.description
            try await database.sql.raw("CREATE TABLE samples (id INTEGER)").run()
            try await database.sql.raw("INSERT INTO samples VALUES (1)").run()
            try await withThrowawayDatabase { other in
                #expect(other.description != database.description)
                await #expect(throws: (any Error).self) { try await other.sql.raw("SELECT * FROM samples").run() }
            }
        }
        #expect(!path.isEmpty && !FileManager.default.fileExists(atPath: path))
    }
}
