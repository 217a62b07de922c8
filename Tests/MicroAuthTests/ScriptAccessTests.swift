import Foundation
@testable import MicroAuth
@testable import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// Scripts: a 401 with `WWW-Authenticate` and a JSON error instead of a redirect, and HTTP
/// Basic credentials checked as the sign-in form is.
@Suite struct ScriptAccessTests {
    private func makeApp(_ users: any UserStore, hasher: PasswordHasher = PasswordHasher(threads: 1), clock: TestClock = TestClock()) -> App {
        let app = isolatedApp { $0.clock = { clock.now } }
        var authentication = Authentication(users: users)
        authentication.hasher = hasher
        authentication.passwordCost = 4
        app.use(authentication)
        app.group("/api", answers: .json) { api in
            api.authenticate()
            api.get("/me") { request in ["username": request.currentUser?.username ?? "?"] }
            api.post("/notes") { request in ["saved": request.params["text"] ?? ""] }
        }
        app.get("/page") { request in
            try request.authenticate()
            return "page for \(request.currentUser?.username ?? "?")"
        }
        app.post("/end-sessions/:name") { request in
            await request.endSessions(of: request.params["name"] ?? "")
            return "ended"
        }
        return app
    }

    private func basic(_ username: String, _ password: String) -> HttpHeaders {
        ["Authorization": "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()]
    }

    private struct ErrorBody: Decodable { let error: String }

    @Test func aScriptWithoutCredentialsGetsA401WithAChallengeAndJson() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = TestClient(makeApp(try UserStoreKind.yaml.make(in: folder)))
        for (path, headers) in [("/api/me", HttpHeaders()), ("/page", ["Accept": "application/json"] as HttpHeaders)] {
            let refused = try await client.get(path, headers: headers)
            #expect(refused.status == .unauthorized, "\(path)")
            #expect(refused.headers.first(name: "WWW-Authenticate") == "Basic realm=\"Micro\", charset=\"UTF-8\"")
            #expect(refused.contentType?.hasPrefix("application/json") == true)
            #expect(try refused.decode(ErrorBody.self).error.contains("HTTP Basic"))
            #expect(refused.headers["Set-Cookie"].isEmpty)
        }
        // A browser is still sent to the sign-in page.
        #expect(try await client.get("/page").location == "/signin")
    }

    @Test func basicCredentialsSignInForTheRequestOnlyWithoutASession() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = TestClient(makeApp(try UserStoreKind.yaml.make(in: folder)))
        let me = try await client.get("/api/me", headers: basic("USER", "secret123"))
        #expect(me.status == .ok && me.text == #"{"username":"user"}"#)
        #expect(me.headers["Set-Cookie"].isEmpty)
        #expect(client.cookies.isEmpty)
        // No cache keeps a script's answer for anyone else.
        #expect(me.headers.first(name: "Cache-Control") == "no-store")
        #expect(me.headers["Vary"].contains("Authorization"))
        // A form POST from a script needs no CSRF token: it carries its own credentials.
        client.sendsCsrfToken = false
        let saved = try await client.post("/api/notes", form: ["text": "disk full"], headers: basic("user", "secret123"))
        #expect(saved.status == .ok && saved.text == #"{"saved":"disk full"}"#)
        // ...unless a browser sent it from another site.
        var crossSite = basic("user", "secret123")
        crossSite.add(name: "Origin", value: "https://evil.example")
        #expect(try await client.post("/api/notes", form: ["text": "x"], headers: crossSite).status == .forbidden)
        // Basic credentials do not sign a browser's page request in.
        #expect(try await client.get("/page", headers: basic("user", "secret123")).location == "/signin")
        // Names with non-ASCII letters and passwords with colons come through as UTF-8.
        #expect(BasicCredentials(header: "Basic " + Data("ännä:a:b".utf8).base64EncodedString()) == BasicCredentials(username: "ännä", password: "a:b"))
    }

    @Test func malformedCredentialsAreA401NeverA500() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = TestClient(makeApp(try UserStoreKind.yaml.make(in: folder)))
        let invalidUtf8 = Data([0x75, 0x73, 0xFF, 0x3A, 0x70]).base64EncodedString()
        for header in ["Basic", "Basic !!!", "Basic \(invalidUtf8)", "Basic " + Data("no-colon".utf8).base64EncodedString(),
            "Bearer abc", "Basic " + String(repeating: "A", count: 6000)]
        {
            let answer = try await client.get("/api/me", headers: ["Authorization": header])
            #expect(answer.status == .unauthorized, "\(header.prefix(20))")
        }
        let long = String(repeating: "a", count: 300)
        #expect(try await client.get("/api/me", headers: basic(long, "pw")).status == .unauthorized)
    }

    @Test func wrongPasswordsAreThrottledWithTheSignInForm() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = makeApp(try UserStoreKind.yaml.make(in: folder))
        let script = TestClient(app), browser = TestClient(app)
        for attempt in 0..<5 {
            if attempt.isMultiple(of: 2) {
                #expect(try await script.get("/api/me", headers: basic("user", "wrong\(attempt)")).status == .unauthorized)
            } else {
                #expect(try await browser.post("/signin", form: ["username": "user", "password": "wrong"]).location == "/signin")
            }
        }
        let locked = try await script.get("/api/me", headers: basic("user", "secret123"))
        #expect(locked.status == .tooManyRequests)
        #expect(locked.headers.first(name: "Retry-After") != nil)
        #expect(locked.contentType?.hasPrefix("application/json") == true)
        #expect(try await browser.post("/signin", form: ["username": "user", "password": "secret123"]).status == .tooManyRequests)
    }

    @Test func aCheckIsCachedUntilThePasswordChangesOrTheUserIsSignedOutEverywhere() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let hasher = PasswordHasher(threads: 1)
        let clock = TestClock()
        let users = try UserStoreKind.sqlite.make(in: folder) as! SqliteUserStore
        let app = makeApp(users, hasher: hasher, clock: clock)
        let client = TestClient(app)
        func checks() -> Int { hasher.verifications.load(ordering: .relaxed) }

        #expect(try await client.get("/api/me", headers: basic("user", "secret123")).status == .ok)
        let afterFirst = checks()
        for _ in 0..<5 { #expect(try await client.get("/api/me", headers: basic("user", "secret123")).status == .ok) }
        #expect(checks() == afterFirst, "no bcrypt while the check is cached")
        // Another password is not the cached one.
        #expect(try await client.get("/api/me", headers: basic("user", "secret1234")).status == .unauthorized)
        #expect(checks() > afterFirst)

        // Past its lifetime the credentials are checked again.
        clock.advance(seconds: 61)
        let beforeExpiry = checks()
        #expect(try await client.get("/api/me", headers: basic("user", "secret123")).status == .ok)
        #expect(checks() == beforeExpiry + 1)

        // Signed out everywhere: the cached check no longer holds.
        clock.advance(seconds: 1)
        #expect(try await TestClient(app).post("/end-sessions/user", form: [:]).text == "ended")
        clock.advance(seconds: 1)
        let beforeRevocation = checks()
        #expect(try await client.get("/api/me", headers: basic("user", "secret123")).status == .ok)
        #expect(checks() == beforeRevocation + 1)

        // A new password: the old one is refused at once, cache or not.
        try users.save(username: "user", passwordHash: try Password.hash("new-secret", cost: 4), name: nil)
        #expect(try await client.get("/api/me", headers: basic("user", "secret123")).status == .unauthorized)
        #expect(try await client.get("/api/me", headers: basic("user", "new-secret")).status == .ok)
    }
}
