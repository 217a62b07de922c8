import Foundation
@testable import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// The whole sign-in flow through the test client, against both user stores.
@Suite struct AuthenticationTests {
    /// An app with the flow, a protected page, a catch-all protected route, and a fake clock.
    private func makeApp(
        _ kind: UserStoreKind, folder: TemporaryFolder, clock: TestClock = TestClock(),
        sessionStore: (any SessionStore)? = nil, configure: (inout Authentication) -> Void = { _ in }
    ) throws -> App {
        let app = isolatedApp { settings in
            settings.clock = { clock.now }
            settings.sessions.store = sessionStore
        }
        var authentication = Authentication(users: try kind.make(in: folder))
        authentication.hasher = PasswordHasher(threads: 1)
        configure(&authentication)
        app.use(authentication)
        app.get("/") { request in "home: \(request.flash["notice"] ?? "-")" }
        app.get("/protected/?") { request in
            try request.authenticate()
            return "protected for \(request.currentUser?.name ?? "?"): \(request.flash["notice"] ?? "-")"
        }
        app.get("/open/*") { request in
            try request.authenticate()
            return "open"
        }
        return app
    }

    private func signIn(_ client: TestClient, _ username: String = "user", _ password: String = "secret123") async throws -> TestResponse {
        try await client.post("/signin", form: ["username": username, "password": password])
    }

    @Test func authenticateAndAuthorizeReturnTheSignedInUserInRoutesAndGroups() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = try makeApp(.yaml, folder: folder)
        app.get("/me") { request in
            let user = try request.authenticate()
            return "me: \(user.username) \(user.name)"
        }
        app.group("/team") { team in
            team.authenticate()
            team.get("/card") { request in "card: \(try request.authenticate().name)" }
        }
        app.get("/admin-only") { request in "admin: \(try request.authorize(role: "admin").username)" }
        let client = TestClient(app)
        #expect(try await client.get("/me").location == "/signin")
        #expect(try await client.get("/team/card").location == "/signin")
        _ = try await signIn(client, "ann", "ann-password")
        #expect(try await client.get("/me").text == "me: ann Ann Smith")
        #expect(try await client.get("/team/card").text == "card: Ann Smith")
        #expect(try await client.get("/admin-only").status == .forbidden)
    }

    @Test(arguments: UserStoreKind.allCases)
    func protectedPageRedirectsToSignInAndBackWithTheQuery(_ kind: UserStoreKind) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = TestClient(try makeApp(kind, folder: folder))

        let first = try await client.get("/protected?tab=2&x=%C3%A9")
        #expect(first.status == .found)
        #expect(first.location == "/signin")

        let form = try await client.get("/signin")
        #expect(form.status == .ok)
        #expect(form.text.contains(#"name="password""#))

        let signedIn = try await signIn(client)
        #expect(signedIn.status == .seeOther)
        #expect(signedIn.location == "/protected?tab=2&x=%C3%A9")

        let page = try await client.get(signedIn.location!)
        #expect(page.status == .ok)
        #expect(page.text == "protected for User: Welcome back User.")
        // The flash is gone on the next request.
        #expect(try await client.get("/protected").text == "protected for User: -")
    }

    @Test(arguments: UserStoreKind.allCases)
    func signInWithoutAStoredPathLandsHomeAndNamesComeFromTheStore(_ kind: UserStoreKind) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = TestClient(try makeApp(kind, folder: folder), followRedirects: true)
        let page = try await signIn(client, "ANN", "ann-password")
        #expect(page.text == "home: Welcome back Ann Smith.")
    }

    @Test(arguments: UserStoreKind.allCases)
    func wrongPasswordOrUnknownUserFailsWithTheSeedsMessage(_ kind: UserStoreKind) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = TestClient(try makeApp(kind, folder: folder))
        for (username, password) in [("user", "wrong"), ("nobody", "secret123"), ("", ""), ("user", "")] {
            let failed = try await signIn(client, username, password)
            #expect(failed.status == .seeOther)
            #expect(failed.location == "/signin")
            let form = try await client.get("/signin")
            #expect(form.text.contains("You could not be signed in. Did you enter the correct username and password?"))
        }
        #expect(try await client.get("/protected").status == .found)
    }

    @Test(arguments: UserStoreKind.allCases)
    func signOutNeedsAPostAndSaysSo(_ kind: UserStoreKind) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = TestClient(try makeApp(kind, folder: folder))
        _ = try await signIn(client)

        // GET shows the button and changes nothing.
        let page = try await client.get("/signout")
        #expect(page.status == .ok)
        #expect(page.text.contains(#"method="post""#))
        #expect(page.text.contains(#"name="_csrf""#))
        #expect(try await client.get("/protected").status == .ok)

        // A forged POST (no token) is refused and signs nobody out.
        client.sendsCsrfToken = false
        #expect(try await client.post("/signout", form: [:]).status == .forbidden)
        #expect(try await client.get("/protected").status == .ok)
        client.sendsCsrfToken = true

        let signedOut = try await client.post("/signout", form: [:])
        #expect(signedOut.status == .seeOther)
        #expect(signedOut.location == "/")
        #expect(try await client.get("/").text == "home: You have been signed out.")
        let again = try await client.get("/protected")
        #expect(again.status == .found)
        #expect(again.location == "/signin")
    }

    @Test(arguments: UserStoreKind.allCases)
    func signInRegeneratesTheSession(_ kind: UserStoreKind) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let memory = MemorySessionStore()
        let client = TestClient(try makeApp(kind, folder: folder, sessionStore: memory))
        _ = try await client.get("/protected")
        let before = try #require(client.cookies[sessionCookie]?.value)
        _ = try await signIn(client)
        let after = try #require(client.cookies[sessionCookie]?.value)
        #expect(before != after)
        // The session an attacker might have planted before sign-in is gone, not signed in.
        #expect(memory.load(cookieValue: before) == nil)
        let planted = TestClient(try makeApp(kind, folder: folder, sessionStore: memory))
        planted.setCookie(sessionCookie, before)
        #expect(try await planted.get("/protected").status == .found)
    }

    @Test func theStoredPathIsAlwaysLocal() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = try makeApp(.yaml, folder: folder)
        let attempts: [(String, String)] = [
            ("/open//evil.example/x", "/open//evil.example/x"),
            ("//evil.example/x", "/evil.example/x"),
            ("///x", "/x"),
            ("/%2f%2fevil.example", "/evil.example"),
            ("/%2F/evil.example", "/evil.example"),
            ("/\\evil.example", "/"),
            ("/%5cevil.example", "/"),
            ("/open/a%0d%0aSet-Cookie:x", "/"),
        ]
        app.get("*") { request in
            try request.authenticate()
            return "catch-all"
        }
        for (path, expected) in attempts {
            let client = TestClient(app)
            let first = try await client.get(path)
            guard first.status == .found else {
                Issue.record("\(path) -> \(first.status)")
                continue
            }
            let signedIn = try await signIn(client)
            #expect(signedIn.location == expected, "\(path)")
        }
        #expect(LocalPath.sanitize("https://evil.example/") == nil)
        #expect(LocalPath.sanitize("/ok?next=//x") == "/ok?next=//x")
        // A slash joined by a mark into one Character (U+FE0F, which browsers drop from a host)
        // is still a slash.
        for (raw, expected) in [("//\u{FE0F}evil.example", "/\u{FE0F}evil.example"), ("/%2F\u{FE0F}evil", "/\u{FE0F}evil")] {
            #expect(LocalPath.sanitize(raw).map { Array($0.utf8) } == Array(expected.utf8), "\(raw)")
        }
        // Escapes are read by bytes too, in either case; a "%" that starts none is left alone.
        for refused in ["/a%5C\u{301}b", "/a%5c", "/a%7F", "/a%1f", "/a%00"] {
            #expect(LocalPath.sanitize(refused) == nil, "\(refused)")
        }
        #expect(LocalPath.sanitize("/%2f%2F/x") == "/x")
        #expect(LocalPath.sanitize("/100%/x%2") == "/100%/x%2")
    }

    @Test func postRequestsAreNotRememberedAsThePathToReturnTo() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = try makeApp(.yaml, folder: folder)
        app.post("/tools/run") { request in
            try request.authenticate()
            return "ran"
        }
        let client = TestClient(app)
        let refused = try await client.post("/tools/run", form: ["x": "1"])
        #expect(refused.status == .seeOther)
        #expect(refused.location == "/signin")
        #expect(try await signIn(client).location == "/")
    }

    @Test(arguments: UserStoreKind.allCases)
    func failedSignInsAreThrottledPerUsername(_ kind: UserStoreKind) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let client = TestClient(try makeApp(kind, folder: folder, clock: clock))
        for _ in 0..<5 {
            #expect(try await signIn(client, "user", "wrong").location == "/signin")
        }
        // Locked now, right password or not.
        let locked = try await signIn(client, "USER", "secret123")
        #expect(locked.status == .tooManyRequests)
        #expect(locked.headers.first(name: "Retry-After") == "900")
        #expect(locked.text.contains("Too many failed sign-ins"))
        // Another user is not affected.
        #expect(try await signIn(client, "ann", "ann-password").location == "/")

        clock.advance(seconds: 600)
        #expect(try await signIn(client, "user", "secret123").headers.first(name: "Retry-After") == "300")
        clock.advance(seconds: 301)
        #expect(try await signIn(client, "user", "secret123").location == "/")
    }

    @Test func aSuccessResetsTheUsernamesCount() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = TestClient(try makeApp(.yaml, folder: folder))
        for _ in 0..<4 { _ = try await signIn(client, "user", "wrong") }
        #expect(try await signIn(client).location == "/")
        for _ in 0..<4 { _ = try await signIn(client, "user", "wrong") }
        #expect(try await signIn(client).location == "/")
    }

    @Test func failedSignInsAreThrottledPerClientAddress() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = TestClient(try makeApp(.yaml, folder: folder) { $0.throttleLimits.failuresPerAddress = 6 })
        for index in 0..<6 { _ = try await signIn(client, "sprayed\(index)", "guess") }
        #expect(try await signIn(client).status == .tooManyRequests)
        client.remoteAddress = "10.0.0.2"
        #expect(try await signIn(client).location == "/")
    }

    @Test func behindATrustedProxyTheThrottleCountsEachClient() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = try makeApp(.yaml, folder: folder) { $0.throttleLimits.failuresPerAddress = 6 }
        app.settings.trustedProxies = ["127.0.0.1"]
        let attacker = TestClient(app)
        for index in 0..<6 {
            _ = try await attacker.post(
                "/signin", form: ["username": "sprayed\(index)", "password": "guess"], headers: ["X-Forwarded-For": "203.0.113.7"])
        }
        #expect(try await attacker.post("/signin", form: ["username": "user", "password": "secret123"], headers: ["X-Forwarded-For": "203.0.113.7"]).status == .tooManyRequests)
        // Another client through the same proxy is not locked out with the attacker.
        let neighbour = TestClient(app)
        #expect(try await neighbour.post("/signin", form: ["username": "user", "password": "secret123"], headers: ["X-Forwarded-For": "198.51.100.4"]).location == "/")
        // Nor can the attacker escape its count by writing another address itself.
        #expect(try await attacker.post("/signin", form: ["username": "user", "password": "secret123"], headers: ["X-Forwarded-For": "198.51.100.4, 203.0.113.7"]).status == .tooManyRequests)
    }

    @Test func anIpv6ClientIsThrottledByItsSlash64() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = TestClient(try makeApp(.yaml, folder: folder) { $0.throttleLimits.failuresPerAddress = 6 })
        for index in 0..<6 {
            client.remoteAddress = "2001:db8:1:2::\(index + 1)"
            _ = try await signIn(client, "sprayed\(index)", "guess")
        }
        client.remoteAddress = "2001:db8:1:2:ffff:ffff:ffff:ffff"
        #expect(try await signIn(client).status == .tooManyRequests)
        client.remoteAddress = "2001:db8:1:3::1"
        #expect(try await signIn(client).location == "/")
    }

    @Test func anUnknownUsernameCostsOneBcryptVerification() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let hasher = PasswordHasher(threads: 1)
        let client = TestClient(try makeApp(.yaml, folder: folder) { $0.hasher = hasher })
        _ = try await signIn(client, "nobody", "whatever")
        #expect(hasher.verifications.load(ordering: .relaxed) == 1)
        _ = try await signIn(client, "user", "wrong")
        #expect(hasher.verifications.load(ordering: .relaxed) == 2)
    }

    @Test func signedInPagesAreNotCachedAndTemplatesSeeTheUser() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let views = try TemporaryFolder([
            "layout.mustache": "{{#signedIn}}<form method=\"post\" action=\"{{signOutPath}}\">{{{csrfField}}}<button>Sign out {{currentUser.name}}</button></form>{{/signedIn}}{{{yield}}}",
            "page.mustache": "<p>{{#currentUser}}Hi {{name}}{{/currentUser}}{{^currentUser}}Hi stranger{{/currentUser}}</p>",
        ])
        defer { views.remove() }
        let app = try makeApp(.yaml, folder: folder)
        app.settings.views = views.path
        app.get("/page") { request in try request.render("page") }
        let client = TestClient(app)
        let anonymous = try await client.get("/page")
        #expect(anonymous.text == "<p>Hi stranger</p>")
        #expect(anonymous.headers.first(name: "Cache-Control") == "private, max-age=0, must-revalidate")
        _ = try await signIn(client)
        let page = try await client.get("/page")
        #expect(page.text.contains("<p>Hi User</p>"))
        #expect(page.text.contains("Sign out User"))
        #expect(page.headers.first(name: "Cache-Control") == "no-store")
    }

    @Test func appsCanWriteTheirOwnSignInRoutes() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = isolatedApp()
        var authentication = Authentication(users: try UserStoreKind.yaml.make(in: folder))
        authentication.installsRoutes = false
        authentication.signInPath = "/login"
        app.use(authentication)
        app.post("/login") { request in
            guard let user = try await request.signIn(username: request.params["username"] ?? "", password: request.params["password"] ?? "") else {
                try request.halt(.unauthorized, "no")
            }
            return "hello \(user.username)"
        }
        app.get("/secret") { request in
            try request.authenticate()
            return "secret"
        }
        let client = TestClient(app)
        #expect(try await client.get("/secret").location == "/login")
        #expect(try await client.get("/signin").status == .notFound)
        #expect(try await client.post("/login", form: ["username": "user", "password": "nope"]).status == .unauthorized)
        #expect(try await client.post("/login", form: ["username": "user", "password": "secret123"]).text == "hello user")
        #expect(try await client.get("/secret").text == "secret")
    }

    @Test func anActiveUserStaysSignedInThroughPagesThatNeverReadTheSession() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let app = try makeApp(.yaml, folder: folder, clock: clock)
        app.get("/plain") { _ in "plain" }
        let client = TestClient(app)
        _ = try await signIn(client)
        for _ in 0..<6 {
            clock.advance(seconds: 5 * 60)
            #expect(try await client.get("/plain").text == "plain")
        }
        #expect(try await client.get("/protected").status == .ok)
        clock.advance(seconds: 601)
        #expect(try await client.get("/protected").status == .found)
    }

    @Test func displayNamesFollowTheSeed() {
        #expect(User(username: "user").name == "User")
        #expect(User(username: "ANN").username == "ann")
        #expect(User(username: "bob", name: "Robert").name == "Robert")
    }
}

@Suite struct AuthenticationHardeningTests {
    @Test func parallelGuessesCannotSlipPastTheLimit() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = isolatedApp()
        app.use(try UserStoreKind.yaml.authentication(in: folder))
        let statuses = try await withThrowingTaskGroup(of: UInt.self) { group in
            for index in 0..<12 {
                group.addTask {
                    let client = TestClient(app)
                    client.remoteAddress = "10.1.0.\(index)"
                    return try await client.post("/signin", form: ["username": "user", "password": "guess\(index)"]).status.code
                }
            }
            return try await group.reduce(into: [UInt]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 303 }.count == 5)
        #expect(statuses.filter { $0 == 429 }.count == 7)
    }

    @Test func aUsernameWithANulNamesNobody() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = isolatedApp()
        app.use(Authentication(users: try UserStoreKind.sqlite.make(in: folder)))
        let client = TestClient(app)
        let response = try await client.post("/signin", form: ["username": "user\u{0}x", "password": "secret123"])
        #expect(response.location == "/signin")
    }

    @Test func aFloodOfChecksGetsA503NotAQueue() async throws {
        let hasher = PasswordHasher(threads: 1, capacity: 1)
        async let slow: String = hasher.hash("pw", cost: 10)
        try await Task.sleep(for: .milliseconds(20))
        await #expect(throws: HttpError.self) { try await hasher.verify("pw", against: TestHashes.secret123) }
        _ = try await slow
    }

    @Test func aStaleSessionCookieIsDeleted() async throws {
        let app = isolatedApp()
        app.get("/plain") { _ in "plain" }
        let response = try await TestClient(app).get("/plain", headers: ["Cookie": "micro.session=forged"])
        #expect(response.headers["Set-Cookie"].contains { $0.hasPrefix("micro.session=;") && $0.contains("Max-Age=0") })
    }

    @Test func theTestClientDoesNotFollowARedirectOffSite() async throws {
        let app = isolatedApp()
        app.get("/out") { request in try request.redirect(to: "https://evil.example/x") }
        let response = try await TestClient(app, followRedirects: true).get("/out")
        #expect(response.status == .found)
        #expect(response.location == "https://evil.example/x")
    }

    // MARK: One name in two spellings: the same text in Unicode's eyes, not the same bytes

    /// "kåre" with a precomposed å (U+00E5), and with an a and a combining ring (U+030A):
    /// Swift's `String` holds them equal, and the username rule makes them one user.
    private static let composed = "k\u{E5}re", decomposed = "ka\u{30A}re"

    /// A store that tells usernames apart by their bytes, as SQLite's `=` does.
    private struct BytewiseUsers: UserStore {
        let users: [StoredUser]
        func find(username: String) throws -> StoredUser? {
            users.first { $0.user.username.utf8.elementsEqual(username.utf8) }
        }
    }

    /// One user, added under the decomposed spelling.
    private func appWithOneUserOfTwoSpellings() throws -> App {
        #expect(Self.composed == Self.decomposed)
        let hash = try Password.hash("pw", cost: 4)
        let app = isolatedApp()
        var authentication = Authentication(users: BytewiseUsers(users: [
            StoredUser(user: User(username: Self.decomposed, name: Self.decomposed), passwordHash: hash)
        ]))
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        app.get("/me") { request in request.currentUser?.username ?? "nobody" }
        app.post("/switch") { request in
            // Reads the user, then signs in again under the other spelling, in one request.
            _ = request.currentUser
            _ = try await request.signIn(username: request.params["username"] ?? "", password: "pw")
            return request.currentUser?.username ?? "nobody"
        }
        app.post("/out") { request in
            // Reads the user, then signs out, in one request.
            _ = request.currentUser
            request.signOut()
            return request.currentUser?.username ?? "nobody"
        }
        return app
    }

    @Test func eitherSpellingSignsInTheOneUserUnderTheEnforcedName() async throws {
        let app = try appWithOneUserOfTwoSpellings()
        for username in [Self.composed, Self.decomposed, Self.composed] {
            let client = TestClient(app)
            #expect(try await client.post("/signin", form: ["username": username, "password": "pw"]).status == .seeOther)
            // The enforced form is NFC: the precomposed å, whichever spelling was typed or stored.
            #expect(Array(try await client.get("/me").text.utf8) == Array(Self.composed.utf8))
        }
    }

    @Test func signingInAgainUnderTheOtherSpellingKeepsTheUser() async throws {
        let client = TestClient(try appWithOneUserOfTwoSpellings())
        #expect(try await client.post("/signin", form: ["username": Self.decomposed, "password": "pw"]).status == .seeOther)
        let switched = try await client.post("/switch", form: ["username": Self.composed])
        #expect(Array(switched.text.utf8) == Array(Self.composed.utf8))
        #expect(Array(try await client.get("/me").text.utf8) == Array(Self.composed.utf8))
    }

    @Test func aRequestThatReadTheUserAndSignsOutHasNoUserAfter() async throws {
        let client = TestClient(try appWithOneUserOfTwoSpellings())
        #expect(try await client.post("/signin", form: ["username": Self.composed, "password": "pw"]).status == .seeOther)
        #expect(try await client.post("/out", form: [:]).text == "nobody")
        #expect(try await client.get("/me").text == "nobody")
    }
}
