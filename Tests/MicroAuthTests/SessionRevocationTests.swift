import Foundation
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// Sessions end when they should: at sign-out wherever the cookie was copied to, when the user
/// is removed or their password changes, and when the app ends them.
@Suite struct SessionRevocationTests {
    private func makeApp(_ users: any UserStore, sessions: SessionStoreKind = .cookie, clock: TestClock = TestClock()) -> App {
        let app = isolatedApp { settings in
            settings.clock = { clock.now }
            if sessions == .memory { settings.sessions.store = MemorySessionStore() }
        }
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        app.get("/me") { request in request.currentUser?.username ?? "nobody" }
        app.post("/end-sessions/:name") { request in
            await request.endSessions(of: request.params["name"] ?? "")
            return "ended"
        }
        app.post("/signout-everywhere") { request in
            let user = try request.authenticate()
            await request.endSessions(of: user.username)
            request.signOut()
            return "done"
        }
        return app
    }

    /// An admin's "sign out everywhere" for `username`, from a request of nobody's.
    private func endSessions(of username: String, in app: App) async throws {
        #expect(try await TestClient(app).post("/end-sessions/\(username)", form: [:]).text == "ended")
    }

    private func signedIn(_ app: App, _ username: String = "user", _ password: String = "secret123") async throws -> TestClient {
        let client = TestClient(app)
        let answer = try await client.post("/signin", form: ["username": username, "password": password])
        #expect(answer.location == "/", "sign-in of \(username)")
        #expect(try await client.get("/me").text == username.lowercased())
        return client
    }

    @Test(arguments: SessionStoreKind.allCases)
    func aCookieCopiedBeforeSignOutIsNotSignedInAfterIt(_ sessions: SessionStoreKind) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = makeApp(try UserStoreKind.yaml.make(in: folder), sessions: sessions)
        let client = try await signedIn(app)
        let copied = try #require(client.cookies["micro.session"]?.value)

        #expect(try await client.post("/signout", form: [:]).location == "/")
        #expect(try await client.get("/me").text == "nobody")

        let replay = TestClient(app)
        replay.setCookie("micro.session", copied)
        let answer = try await replay.get("/me")
        #expect(answer.text == "nobody")
        // Not renewed: the only cookie it gets is the deletion of the stale one.
        #expect(answer.headers["Set-Cookie"].allSatisfy { $0.hasPrefix("micro.session=;") && $0.contains("Max-Age=0") })
        #expect(!answer.headers["Set-Cookie"].isEmpty)
    }

    @Test func aSignOutDoesNotEndAnotherSessionOfTheSameUser() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = makeApp(try UserStoreKind.yaml.make(in: folder))
        let phone = try await signedIn(app)
        let laptop = try await signedIn(app)
        _ = try await phone.post("/signout", form: [:])
        #expect(try await laptop.get("/me").text == "user")
    }

    @Test func aRevocationIsForgottenOnlyOnceTheSessionWouldHaveExpired() async throws {
        let revocations = MemorySessionRevocations()
        revocations.revoke(id: "a", until: 1000 + 8 * 3600, now: 1000)
        revocations.revoke(id: "b", until: 1000 + 3600, now: 1000)
        #expect(revocations.isRevoked(id: "a", created: 1000))
        // Entries go by the minute they expire in, once a later revocation sweeps.
        revocations.revoke(id: "c", until: 1000 + 9 * 3600, now: 1000 + 3600 + 120)
        #expect(revocations.count == 2)
        #expect(!revocations.isRevoked(id: "b", created: 1000))
        #expect(revocations.isRevoked(id: "a", created: 1000))
        revocations.revoke(id: "d", until: 1000 + 10 * 3600, now: 1000 + 9 * 3600 + 120)
        #expect(revocations.count == 1)
        // A session already over is not kept at all.
        revocations.revoke(id: "e", until: 10, now: 1000 + 9 * 3600 + 120)
        #expect(revocations.count == 1)
    }

    @Test func aUserRemovedFromTheFileIsSignedOutOnTheNextRequestAndTheOthersStay() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let users = try UserStoreKind.yaml.make(in: folder) as! YamlUserStore
        let app = makeApp(users)
        let user = try await signedIn(app)
        let ann = try await signedIn(app, "Ann", "ann-password")
        try folder.writeUsers("credentials.yml", [("Ann", TestHashes.annPassword, "Ann Smith")])
        try app.reload()
        #expect(try await user.get("/me").text == "nobody")
        #expect(try await ann.get("/me").text == "ann")
    }

    @Test func aChangedPasswordInTheFileSignsTheUserOut() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let users = try UserStoreKind.yaml.make(in: folder) as! YamlUserStore
        let app = makeApp(users)
        let user = try await signedIn(app)
        let ann = try await signedIn(app, "Ann", "ann-password")
        try folder.writeUsers("credentials.yml", [
            ("user", try Password.hash("new-secret", cost: 4), nil), ("Ann", TestHashes.annPassword, "Ann Smith"),
        ])
        try users.reload()
        #expect(try await user.get("/me").text == "nobody")
        #expect(try await ann.get("/me").text == "ann")
        _ = try await signedIn(app, "user", "new-secret")
    }

    @Test func aChangeInTheTableByAnotherProcessSignsTheUserOut() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = makeApp(try UserStoreKind.sqlite.make(in: folder))
        let user = try await signedIn(app)
        let ann = try await signedIn(app, "Ann", "ann-password")
        // add-user over an existing name, from another connection (as another process would).
        let other = try SqliteUserStore(path: folder.file("users.db"))
        try other.save(username: "user", passwordHash: try Password.hash("new-secret", cost: 4), name: nil)
        // Seen within about a second: the stamps are read again in the background.
        var signedOut = false
        for _ in 0..<100 where !signedOut {
            signedOut = try await user.get("/me").text == "nobody"
            if !signedOut { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(signedOut)
        #expect(try await ann.get("/me").text == "ann")
    }

    @Test func aUserRemovedFromTheTableIsSignedOut() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = makeApp(try UserStoreKind.sqlite.make(in: folder))
        let user = try await signedIn(app)
        #expect(try SqliteUserStore(path: folder.file("users.db")).remove(username: "USER"))
        var signedOut = false
        for _ in 0..<100 where !signedOut {
            signedOut = try await user.get("/me").text == "nobody"
            if !signedOut { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(signedOut)
    }

    @Test(arguments: SessionStoreKind.allCases)
    func endingTheSessionsOfAUserEndsEverySessionOfThatUserOnly(_ sessions: SessionStoreKind) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let app = makeApp(try UserStoreKind.yaml.make(in: folder), sessions: sessions, clock: clock)
        let phone = try await signedIn(app)
        let laptop = try await signedIn(app)
        let ann = try await signedIn(app, "Ann", "ann-password")
        try await endSessions(of: "USER", in: app)
        #expect(try await phone.get("/me").text == "nobody")
        #expect(try await laptop.get("/me").text == "nobody")
        #expect(try await ann.get("/me").text == "ann")
        // A sign-in after it is a new session, not ended by it.
        clock.advance(seconds: 1)
        _ = try await signedIn(app)
    }

    /// The clock stands still: the sign-in comes after the revocation only in the order of
    /// events, which is what decides.
    @Test(arguments: SessionStoreKind.allCases)
    func aSignInInTheSameMillisecondAsSignOutEverywhereStands(_ sessions: SessionStoreKind) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let app = makeApp(try UserStoreKind.yaml.make(in: folder), sessions: sessions, clock: clock)
        let before = try await signedIn(app)
        try await endSessions(of: "user", in: app)
        #expect(try await before.get("/me").text == "nobody")
        let after = try await signedIn(app)
        #expect(try await after.get("/me").text == "user")
        // Revoked again, still in that millisecond: the session begun before this one ends.
        try await endSessions(of: "user", in: app)
        #expect(try await after.get("/me").text == "nobody")
        // With the clock moving within the second, the same.
        clock.advance(seconds: 0.3)
        let later = try await signedIn(app)
        clock.advance(seconds: 0.3)
        #expect(try await later.get("/me").text == "user")
        try await endSessions(of: "user", in: app)
        #expect(try await later.get("/me").text == "nobody")
        clock.advance(seconds: 0.001)
        let last = try await signedIn(app)
        #expect(try await last.get("/me").text == "user")
    }

    @Test func aSignInInTheSameMillisecondAsSignOutEveryoneStands() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = makeApp(try UserStoreKind.yaml.make(in: folder))
        let user = try await signedIn(app)
        let ann = try await signedIn(app, "Ann", "ann-password")
        app.signOutEveryone()
        #expect(try await user.get("/me").text == "nobody")
        #expect(try await ann.get("/me").text == "nobody")
        let again = try await signedIn(app)
        #expect(try await again.get("/me").text == "user")
        app.signOutEveryone()
        #expect(try await again.get("/me").text == "nobody")
    }

    @Test func aSignInInTheSameMillisecondAsSigningThemselvesOutEverywhereStands() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = makeApp(try UserStoreKind.yaml.make(in: folder))
        let phone = try await signedIn(app)
        let laptop = try await signedIn(app)
        #expect(try await laptop.post("/signout-everywhere", form: [:]).text == "done")
        #expect(try await phone.get("/me").text == "nobody")
        let again = try await signedIn(app)
        #expect(try await again.get("/me").text == "user")
        #expect(try await laptop.get("/me").text == "nobody")
    }

    /// The instants revocations hand out: a session begins after every revocation known, and a
    /// revocation ends every session begun before it, whatever the clock says.
    @Test func revocationsAndSessionsAreToldApartWhenTheClockStandsStill() {
        let revocations = MemorySessionRevocations()
        #expect(revocations.beginning(at: 5_000) == 5_000)
        #expect(revocations.revokeSessions(of: "ann", at: 5_000, until: 100, now: 5) == 5_000)
        let begun = revocations.beginning(at: 5_000)
        #expect(begun == 5_001)
        #expect(revocations.isRevoked(username: "ann", created: 5_000))
        #expect(!revocations.isRevoked(username: "ann", created: begun))
        // Another revocation in that millisecond takes effect after the session begun in it.
        #expect(revocations.revokeSessions(of: "ann", at: 5_000, until: 100, now: 5) == 5_001)
        #expect(revocations.isRevoked(username: "ann", created: begun))
        #expect(revocations.revokeAll(at: 5_000) == 5_002)
        #expect(revocations.isRevoked(id: "any", created: 5_002))
        #expect(!revocations.isRevoked(id: "any", created: revocations.beginning(at: 5_000)))
        // Once the clock has passed them, instants are the clock's.
        #expect(revocations.beginning(at: 6_000) == 6_000)
        #expect(revocations.revokeSessions(of: "bob", at: 6_000, until: 100, now: 6) == 6_000)
        // One made elsewhere is kept at its own instant, and sessions begun here after hearing of
        // it begin after it, even on a clock behind that instance's.
        revocations.revokeSessions(of: "cy", madeElsewhereAt: 9_000, until: 100, now: 6)
        #expect(revocations.isRevoked(username: "cy", created: 9_000))
        #expect(!revocations.isRevoked(username: "cy", created: 9_001))
        #expect(revocations.beginning(at: 6_500) == 9_001)
        revocations.revokeAll(madeElsewhereAt: 8_000)
        #expect(revocations.isRevoked(id: "any", created: 8_000))
        #expect(!revocations.isRevoked(id: "any", created: 8_001))
    }

    @Test func aUserCanSignThemselvesOutEverywhere() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = makeApp(try UserStoreKind.yaml.make(in: folder))
        let phone = try await signedIn(app)
        let laptop = try await signedIn(app)
        #expect(try await laptop.post("/signout-everywhere", form: [:]).text == "done")
        #expect(try await phone.get("/me").text == "nobody")
        #expect(try await laptop.get("/me").text == "nobody")
    }

    @Test func signOutEveryoneEndsAllSessions() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let app = makeApp(try UserStoreKind.yaml.make(in: folder), clock: clock)
        let user = try await signedIn(app)
        let ann = try await signedIn(app, "Ann", "ann-password")
        app.signOutEveryone()
        #expect(try await user.get("/me").text == "nobody")
        #expect(try await ann.get("/me").text == "nobody")
        clock.advance(seconds: 1)
        _ = try await signedIn(app)
    }

    @Test func anAnonymousSignOutKeepsNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let revocations = MemorySessionRevocations()
        let app = makeApp(try UserStoreKind.yaml.make(in: folder))
        app.settings.sessions.revocations = revocations
        for _ in 0..<50 {
            let client = TestClient(app)
            _ = try await client.get("/signin")
            #expect(try await client.post("/signout", form: [:]).location == "/")
        }
        #expect(revocations.count == 0)
        // A signed-in one is kept until no copy of its cookie could open: the idle timeout.
        let clock = TestClock()
        let timed = makeApp(try UserStoreKind.yaml.make(in: folder), clock: clock)
        let kept = MemorySessionRevocations()
        timed.settings.sessions.revocations = kept
        let user = try await signedIn(timed)
        _ = try await user.post("/signout", form: [:])
        #expect(kept.count == 1)
        kept.revoke(id: "later", until: Int64(clock.now.timeIntervalSince1970) + 3600, now: Int64(clock.now.timeIntervalSince1970) + 600 + 60 + 120)
        #expect(kept.count == 1)
    }

    @Test func revocationsSetAfterTheAuthenticationIsInstalledAreTheOnesUsed() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = makeApp(try UserStoreKind.yaml.make(in: folder))
        let revocations = MemorySessionRevocations()
        app.settings.sessions.revocations = revocations
        let user = try await signedIn(app)
        try await endSessions(of: "user", in: app)
        #expect(try await user.get("/me").text == "nobody")
    }

    @Test func theAbsoluteLifetimeCountsFromTheSignIn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let app = makeApp(try UserStoreKind.yaml.make(in: folder), clock: clock)
        let client = TestClient(app)
        // An anonymous session kept alive for seven hours, then a sign-in.
        for _ in 0..<(7 * 6) {
            _ = try await client.get("/signin")
            clock.advance(seconds: 590)
        }
        #expect(try await client.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/")
        // Four hours on (eleven since the anonymous session began), still signed in.
        for _ in 0..<(4 * 6) {
            clock.advance(seconds: 590)
            #expect(try await client.get("/me").text == "user")
        }
    }
}
