import Foundation
import Logging
import Micro
import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import MicroTwoFactor
import Testing

/// Set-up links: an admin invites a user or sends an existing one a link, never a password;
/// the link sets the password once, until it expires, is superseded, or its user changes.
@Suite struct SetupLinkTests {
    /// An app over `users.db` in `folder`: `ann` (admin, ann-password) and `user` (secret123).
    private func makeApp(
        _ folder: TemporaryFolder, clock: TestClock, database: Database? = nil, log: LogRecorder? = nil
    ) throws -> (App, SqliteUserStore) {
        let app = isolatedApp(logger: log?.logger ?? .quietForTests) {
            $0.clock = { clock.now }
            $0.accessLog = log != nil
        }
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann Smith", roles: ["admin"])
        try users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        app.use(database.map { Accounts(database: $0) } ?? Accounts())
        app.get("/me") { request in try request.authenticate().username }
        return (app, users)
    }

    /// The link a page shows in its `data-setup-link` attribute.
    private func link(in page: TestResponse) throws -> String {
        let range = try #require(page.text.range(of: #"data-setup-link="[^"]+""#, options: .regularExpression))
        return String(page.text[range].dropFirst("data-setup-link=\"".count).dropLast())
    }

    @Test func anInvitationGivesALinkThatSetsThePasswordOnceAndSignsIn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock(Date())
        let (app, users) = try makeApp(folder, clock: clock)
        let ann = try await SetupLinkWalk.admin(app)
        let made = try await ann.post("/admin/users/invite", form: ["new_username": "bob", "name": "Bob Brown", "roles": "editor", "email": "bob@example.com"])
        #expect(made.status == .ok)
        #expect(made.headers.first(name: "Cache-Control") == "no-store" && made.headers.first(name: "Referrer-Policy") == "no-referrer")
        let url = try link(in: made)
        #expect(url.hasPrefix("http://") && url.contains("/password/setup?key="))
        let secret = String(url[url.range(of: "key=")!.upperBound...])
        #expect(secret.utf8.count == 43)
        let bob = try #require(try users.find(username: "bob"))
        #expect(!bob.hasPassword && bob.user.roles == ["editor"] && bob.user.email == "bob@example.com" && !bob.passwordChangeDue)

        let browser = TestClient(app)
        let form = try await SetupLinkWalk.open(browser, url)
        #expect(form.status == .ok && form.text.contains("Choose your password") && form.text.contains("bob"))
        #expect(!form.text.contains(secret))
        #expect(form.headers.first(name: "Referrer-Policy") == "no-referrer")
        // Refusals keep the link.
        #expect(try await SetupLinkWalk.choose(browser, "short").status == .unprocessableEntity)
        #expect(try await SetupLinkWalk.choose(browser, "bob's own choice 1", again: "bob's own choice 2").status == .unprocessableEntity)
        let set = try await SetupLinkWalk.choose(browser, "bob's own choice 1")
        #expect(set.status == .seeOther && set.location == "/account")
        #expect(try await browser.get("/me").text == "bob")
        #expect(try users.find(username: "bob")?.hasPassword == true)
        let audit = try await ann.get("/admin/audit?user=bob", headers: ["Accept": "application/json"]).text
        #expect(audit.contains("password_set") && audit.contains("by setup link") && audit.contains("invited by ann") && audit.contains("setup_link_made"))

        // Used: the same link, in this browser or another, opens nothing.
        #expect(try await SetupLinkWalk.open(TestClient(app), url).status == .gone)
        #expect(try await SetupLinkWalk.open(browser, url).status == .gone)
        let other = TestClient(app)
        try await other.signIn("bob", "bob's own choice 1")
        #expect(try await other.get("/me").text == "bob")
    }

    @Test func twoPostsRacingSetThePasswordOnce() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock(Date())
        let database = try await Database.sqlite(path: folder.file("accounts.db"))
        let (app, users) = try makeApp(folder, clock: clock, database: database)
        let ann = try await SetupLinkWalk.admin(app)
        let url = try link(in: try await ann.post("/admin/users/invite", form: ["new_username": "bob", "roles": ""]))
        let first = TestClient(app), second = TestClient(app)
        #expect(try await SetupLinkWalk.open(first, url).status == .ok)
        #expect(try await SetupLinkWalk.open(second, url).status == .ok)
        async let a = SetupLinkWalk.choose(first, "the first choice 1")
        async let b = SetupLinkWalk.choose(second, "the second choice 2")
        let statuses = [try await a.status, try await b.status].map(\.code).sorted()
        #expect(statuses == [303, 410])
        let stored = try #require(try users.find(username: "bob"))
        #expect(Password.verify("the first choice 1", against: stored.passwordHash) != Password.verify("the second choice 2", against: stored.passwordHash))
        await database.shutdown()
    }

    @Test func aLinkEndsWithItsLifetimeANewerLinkADisablingOrARemoval() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock(Date())
        let (app, _) = try makeApp(folder, clock: clock)
        // Expired (the admin's session too: she signs in again).
        let expiring = try link(in: try await SetupLinkWalk.admin(app).post("/admin/users/setup-link", form: ["username": "user"]))
        clock.advance(seconds: 259_201)
        #expect(try await SetupLinkWalk.open(TestClient(app), expiring).status == .gone)
        let ann = try await SetupLinkWalk.admin(app)
        // Superseded.
        let older = try link(in: try await ann.post("/admin/users/setup-link", form: ["username": "user"]))
        let newer = try link(in: try await ann.post("/admin/users/setup-link", form: ["username": "user"]))
        #expect(try await SetupLinkWalk.open(TestClient(app), older).status == .gone)
        // Opened, then the user disabled: the form's post changes nothing.
        let browser = TestClient(app)
        #expect(try await SetupLinkWalk.open(browser, newer).status == .ok)
        #expect(try await ann.post("/admin/users/disable", form: ["username": "user"]).status == .seeOther)
        #expect(try await SetupLinkWalk.choose(browser, "a choice of mine 1").status == .gone)
        #expect(try await ann.post("/admin/users/enable", form: ["username": "user"]).status == .seeOther)
        #expect(try await SetupLinkWalk.open(TestClient(app), newer).status == .gone)
        // A disabled user gets no link.
        #expect(try await ann.post("/admin/users/disable", form: ["username": "user"]).status == .seeOther)
        #expect(try await ann.post("/admin/users/setup-link", form: ["username": "user"]).status == .unprocessableEntity)
        #expect(try await ann.post("/admin/users/enable", form: ["username": "user"]).status == .seeOther)
        // Removed, and a user of the name invited again: the old link is not theirs.
        let removedOnes = try link(in: try await ann.post("/admin/users/setup-link", form: ["username": "user"]))
        #expect(try await ann.post("/admin/users/remove", form: ["username": "user"]).status == .seeOther)
        _ = try await ann.post("/admin/users/invite", form: ["new_username": "user", "roles": ""])
        #expect(try await SetupLinkWalk.open(TestClient(app), removedOnes).status == .gone)
    }

    @Test func sendingALinkEndsTheUsersSessionsAndNoPasswordIsAsked() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock(Date())
        let (app, _) = try makeApp(folder, clock: clock)
        let user = TestClient(app)
        try await user.signIn("user", "secret123")
        clock.advance(seconds: 1)
        let ann = try await SetupLinkWalk.admin(app)
        let made = try await ann.post("/admin/users/setup-link", form: ["username": "user"])
        #expect(made.status == .ok && !made.text.contains("secret123"))
        #expect(try await user.get("/me").location == "/signin")
        clock.advance(seconds: 1)
        let browser = TestClient(app)
        #expect(try await SetupLinkWalk.open(browser, try link(in: made)).status == .ok)
        #expect(try await SetupLinkWalk.choose(browser, "a reset of mine 1").status == .seeOther)
        #expect(try await browser.get("/me").text == "user")
        #expect(try await ann.post("/admin/users/setup-link", form: ["username": "nobody"]).status == .notFound)
    }

    @Test func aMalformedForeignOrMissingSecretIsTheSameGoneAndCountsAgainstTheAddress() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, _) = try makeApp(folder, clock: TestClock(Date()))
        let hostile = [
            "", "short", String(repeating: "A", count: 43), String(repeating: "A", count: 5000), "%0D%0ASet-Cookie:%20x=1",
            "\u{202E}" + String(repeating: "a", count: 42), "e\u{301}" + String(repeating: "a", count: 41),
        ]
        let client = TestClient(app)
        for key in hostile {
            let answer = try await client.get("/password/setup?key=" + PercentEncoding.encode(key))
            #expect(answer.status == .gone, "\(key.prefix(20))")
            #expect(answer.text.contains("used or has expired"))
        }
        #expect(try await client.get("/password/setup").status == .gone)
        #expect(try await client.post("/password/setup", form: ["new_password": "a long phrase 1", "new_password_confirmation": "a long phrase 1"]).status == .gone)
        // Past the throttle's limit for one address: refused before any look-up.
        var last = HttpStatus.ok
        for _ in 0..<30 { last = try await client.get("/password/setup?key=" + String(repeating: "B", count: 43)).status }
        #expect(last == .tooManyRequests)
    }

    @Test func theLifetimeIsReadFromItsVariableAndABadOneIsNamed() throws {
        #expect(try Accounts.setupLinkLifetime([:]) == .seconds(259_200))
        #expect(try Accounts.setupLinkLifetime(["MICRO_SETUP_LINK_LIFETIME": "3600"]) == .seconds(3600))
        for bad in ["59", "2592001", "1h", "-5", "3600\n", "\u{1B}[31m"] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try Accounts.setupLinkLifetime(["MICRO_SETUP_LINK_LIFETIME": bad]) }
        }
        #expect { try Accounts.setupLinkLifetime(["MICRO_SETUP_LINK_LIFETIME": "1h"]) } throws: { error in
            "\(error)".contains("MICRO_SETUP_LINK_LIFETIME is '1h'; it must be a whole number of seconds from 60 to 2592000")
        }
    }

    @Test func aMemoryStoreKeepsOneLinkPerUserAndNoMoreThanItsCapacity() async throws {
        let store = MemorySetupLinkStore(capacity: 3)
        func link(_ digest: String, _ user: String, expires: Int64) -> SetupLink {
            SetupLink(digest: digest, username: user, purpose: .setup, hashDigest: "h", createdAt: 0, expiresAt: expires)
        }
        try await store.add(link("a1", "ann", expires: 100), now: 0)
        try await store.add(link("a2", "ann", expires: 100), now: 0)
        #expect(try await store.find(digest: "a1", now: 0) == nil)
        try await store.add(link("b", "bob", expires: 50), now: 0)
        try await store.add(link("c", "cat", expires: 200), now: 0)
        try await store.add(link("d", "dan", expires: 300), now: 0)
        // Full: the one that ends soonest went.
        #expect(try await store.find(digest: "b", now: 0) == nil)
        #expect(try await store.find(digest: "a2", now: 0) != nil && store.count == 3)
        #expect(try await store.find(digest: "c", now: 200) == nil)
        #expect(try await store.take(digest: "d", now: 0)?.username == "dan")
        #expect(try await store.take(digest: "d", now: 0) == nil)
    }

    @Test func noLogLineHoldsTheSecret() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let log = LogRecorder()
        let (app, _) = try makeApp(folder, clock: TestClock(Date()), log: log)
        let ann = try await SetupLinkWalk.admin(app)
        let url = try link(in: try await ann.post("/admin/users/invite", form: ["new_username": "bob", "roles": ""]))
        let secret = String(url[url.range(of: "key=")!.upperBound...])
        let browser = TestClient(app)
        #expect(try await SetupLinkWalk.open(browser, url).status == .ok)
        #expect(try await SetupLinkWalk.choose(browser, "short").status == .unprocessableEntity)
        #expect(try await SetupLinkWalk.choose(browser, "bob's own choice 1").status == .seeOther)
        #expect(try await SetupLinkWalk.open(TestClient(app), url).status == .gone)
        let lines = Logger.Level.allCases.flatMap { log.lines(at: $0) }
        #expect(lines.contains { $0.contains("/password/setup") }, "the access log is on")
        #expect(!lines.contains { $0.contains(secret) || $0.contains(SetupLinkSecret.digest(of: secret)) })
    }

    @Test func aUserWithASecondFactorIsAskedForItAfterTheLink() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock(Date())
        let database = try await Database.sqlite(path: folder.file("accounts.db"))
        let (app, _) = try makeApp(folder, clock: clock, database: database)
        let user = TestClient(app)
        try await user.signIn("user", "secret123")
        let setup = try await user.post("/account/two-factor/setup", form: ["current_password": "secret123"])
        let secretRange = try #require(setup.text.range(of: #"data-totp-secret="[A-Z2-7]+""#, options: .regularExpression))
        let totp = Totp(secret: try #require(Base32.decode(String(setup.text[secretRange].dropFirst("data-totp-secret=\"".count).dropLast()))))
        #expect(try await user.post("/account/two-factor/enable", form: ["code": totp.code(at: Int64(clock.now.timeIntervalSince1970))]).status == .ok)
        clock.advance(seconds: 1)
        let ann = try await SetupLinkWalk.admin(app)
        let url = try link(in: try await ann.post("/admin/users/setup-link", form: ["username": "user"]))
        clock.advance(seconds: 1)
        let browser = TestClient(app)
        #expect(try await SetupLinkWalk.open(browser, url).status == .ok)
        let set = try await SetupLinkWalk.choose(browser, "a new choice of mine 1")
        #expect(set.status == .seeOther && set.location == "/signin/two-factor", "\(set.status) \(set.location ?? "")")
        #expect(try await browser.get("/me").location == "/signin")
        clock.advance(seconds: 30)
        let code = try await browser.post("/signin/two-factor", form: ["code": totp.code(at: Int64(clock.now.timeIntervalSince1970))])
        #expect(code.status == .seeOther)
        #expect(try await browser.get("/me").text == "user")
        await database.shutdown()
    }
}
