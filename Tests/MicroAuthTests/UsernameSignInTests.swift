import Foundation
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// Sign-in looks users up by ``Username``'s enforced form; a name outside the rule fails as a
/// wrong password does.
@Suite struct UsernameSignInTests {
    private func makeApp(_ folder: TemporaryFolder) throws -> App {
        try folder.writeUsers("credentials.yml", [("émile", TestHashes.secret123, nil), ("kate", TestHashes.annPassword, nil)])
        let app = isolatedApp()
        var authentication = Authentication(users: try YamlUserStore(file: folder.file("credentials.yml")))
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        app.get("/me") { request in request.currentUser?.username ?? "nobody" }
        return app
    }

    @Test(arguments: ["ÉMILE", "émile", "e\u{301}mile", "Ｅ\u{301}ＭＩＬＥ", " Émile "])
    func everySpellingSignsInTheOneUser(_ spelling: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = TestClient(try makeApp(folder))
        let response = try await client.post("/signin", form: ["username": spelling, "password": "secret123"])
        #expect(response.location == "/")
        #expect(try await client.get("/me").text == "émile")
    }

    @Test func fullwidthKateIsKateAndTheKelvinSignIsNobody() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = try makeApp(folder)
        let client = TestClient(app)
        #expect(try await client.post("/signin", form: ["username": "ＫＡＴＥ", "password": "ann-password"]).location == "/")
        #expect(try await client.get("/me").text == "kate")

        let other = TestClient(app)
        let refused = try await other.post("/signin", form: ["username": "\u{212A}ATE", "password": "ann-password"])
        #expect(refused.location == "/signin")
        #expect(try await other.get("/me").text == "nobody")
    }

    @Test func aRefusedNameCountsAsAFailedSignIn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = TestClient(try makeApp(folder))
        for _ in 0..<5 {
            #expect(try await client.post("/signin", form: ["username": "\u{1B}[31mkate", "password": "ann-password"]).location == "/signin")
        }
        let throttled = try await client.post("/signin", form: ["username": "\u{1B}[31mkate", "password": "ann-password"])
        #expect(throttled.status == .tooManyRequests)
        // Kate herself is not locked out by someone else's refused name.
        #expect(try await client.post("/signin", form: ["username": "kate", "password": "ann-password"]).location == "/")
    }

    @Test func scriptsSignInWithAnySpellingOverHttpBasic() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = try makeApp(folder)
        app.get("/api/me") { request in
            try request.authenticate()
            return request.currentUser?.username ?? "nobody"
        }
        let credentials = Data("ÉMILE:secret123".utf8).base64EncodedString()
        let response = try await TestClient(app).get("/api/me", headers: ["Accept": "application/json", "Authorization": "Basic \(credentials)"])
        #expect(response.status == .ok)
        #expect(response.text.contains("émile"))
    }
}
