import Foundation
import Micro
import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// The account pages' mail: an invitation mails its set-up link, "forgot password" mails a
/// reset link to a known address and tells nobody which addresses are known, within bounds.
@Suite struct AccountMailTests {
    /// An app over `users.db` in `folder`: `ann` (admin, ann-password, ann@example.com), `user`
    /// (secret123, user@example.com) and `sso` (no password, sso@example.com); mail through
    /// `mailer` unless it is nil.
    private func makeApp(
        _ folder: TemporaryFolder, clock: TestClock, mailer: RecordingMailer?, limits: SignInThrottle.Limits = SignInThrottle.Limits(),
        passwords: Bool = true, database: Database? = nil, configure: (inout Accounts) -> Void = { _ in }
    ) throws -> (App, SqliteUserStore) {
        let app = isolatedApp { $0.clock = { clock.now } }
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann Smith", roles: ["admin"], email: "ann@example.com")
        try users.save(username: "user", passwordHash: TestHashes.secret123, name: "Una User", email: "user@example.com")
        try users.save(username: "sso", passwordHash: StoredUser.noPasswordHash, name: "Sso Only", email: "sso@example.com")
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        authentication.throttleLimits = limits
        authentication.acceptsPasswords = passwords
        app.use(authentication)
        var accounts = database.map { Accounts(database: $0) } ?? Accounts()
        if let mailer { accounts.mail = AccountMail(mailer: mailer, from: try MailAddress("tools@example.com"), fromName: "Lab Tools") }
        configure(&accounts)
        app.use(accounts)
        app.get("/me") { request in try request.authenticate().username }
        app.get("/api/me") { request in try request.authenticate().username }
        return (app, users)
    }

    /// The set-up link in `text`.
    private func link(in text: String) throws -> String {
        let range = try #require(text.range(of: #"https?://[^\s"<]+/password/setup\?key=[A-Za-z0-9_-]+"#, options: .regularExpression))
        return String(text[range])
    }

    /// Opens `link` in `client` and sets `password` with it.
    private func use(_ link: String, in client: TestClient, password: String) async throws -> TestResponse {
        let form = try await SetupLinkWalk.open(client, link)
        guard form.status == .ok else { return form }
        return try await SetupLinkWalk.choose(client, password)
    }

    /// Asks a reset for ann, whose message is sent in its turn: the queue sends in order, so when
    /// hers is the only message, nothing asked before it was sent. No sleep decides it.
    private func expectNothingSentBefore(_ app: App, _ mailer: RecordingMailer) async throws {
        #expect(try await forgot(TestClient(app), "ann@example.com").status == .ok)
        let sent = await mailer.messages(atLeast: 1)
        #expect(sent.map(\.to.description) == ["ann@example.com"], "\(sent.map(\.to.description))")
    }

    private func forgot(_ client: TestClient, _ email: String) async throws -> TestResponse {
        _ = try await client.get("/password/forgot")
        return try await client.post("/password/forgot", form: ["email": email])
    }

    @Test func anInvitationWithAnAddressMailsItsLinkAndNoPassword() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let mailer = RecordingMailer()
        let (app, users) = try makeApp(folder, clock: TestClock(Date()), mailer: mailer)
        let ann = try await SetupLinkWalk.admin(app)
        let page = try await ann.post("/admin/users/invite", form: ["new_username": "bob", "name": "Bob Brown", "roles": "", "email": "Bob@Example.com"])
        #expect(page.status == .ok)
        #expect(page.text.contains("The link was mailed to Bob@Example.com") && page.text.contains("data-setup-link="))
        let sent = mailer.messages
        #expect(sent.count == 1)
        let message = try #require(sent.first)
        #expect(message.to.description == "Bob@Example.com" && message.toName == "Bob Brown" && message.from.description == "tools@example.com")
        #expect(message.subject == "Choose your password")
        let url = try link(in: message.body)
        #expect(page.text.contains(#"data-setup-link="\#(url)""#))
        #expect(!message.body.lowercased().contains("password:") && !message.rendered.contains("$2"))
        let audit = try await ann.get("/admin/audit?user=bob", headers: ["Accept": "application/json"]).text
        #expect(audit.contains("setup_link_mailed") && audit.contains("to Bob@Example.com"))
        // The mailed link sets the password and signs Bob in.
        let bob = TestClient(app)
        #expect(try await use(url, in: bob, password: "bob's own phrase 7").status == .seeOther)
        #expect(try await bob.get("/me").text == "bob")
        #expect(try users.find(username: "bob")?.hasPassword == true)
        // An invitation without an address is mailed to nobody.
        _ = try await ann.post("/admin/users/invite", form: ["new_username": "cy", "roles": ""])
        #expect(mailer.messages.count == 1)
    }

    @Test func aMessageThatCannotBeSentIsA503ThatStillShowsTheLink() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let mailer = RecordingMailer(failure: MailError("mail.example.com:587: connection refused"))
        let (app, users) = try makeApp(folder, clock: TestClock(Date()), mailer: mailer)
        let ann = try await SetupLinkWalk.admin(app)
        let page = try await ann.post("/admin/users/invite", form: ["new_username": "bob", "roles": "", "email": "bob@example.com"])
        #expect(page.status == .serviceUnavailable)
        #expect(page.text.contains("could not be sent") && page.text.contains("data-setup-link="))
        #expect(try users.find(username: "bob") != nil)
        // The admin's "Send set-up link" says the same; JSON too.
        let json = try await ann.post("/admin/users/setup-link", form: ["username": "user"], headers: ["Accept": "application/json"])
        #expect(json.status == .serviceUnavailable && json.text.contains("\"link\"") && json.text.contains("could not be sent"))
    }

    @Test func withoutMailThereIsNoForgotPassword() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, _) = try makeApp(folder, clock: TestClock(Date()), mailer: nil)
        let client = TestClient(app)
        #expect(try await client.get("/password/forgot").status == .notFound)
        #expect(!(try await client.get("/signin").text.contains("Forgot your password")))
    }

    @Test func mailSettingsThatCouldNotWorkAreStartUpProblemsNamingThem() async throws {
        var mail = AccountMail(mailer: RecordingMailer(), from: try MailAddress("tools@example.com"))
        mail.resetLinkLifetime = .seconds(10)
        mail.resetsPerUser = 0
        mail.sendTimeout = .zero
        mail.queueCapacity = 0
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, _) = try makeApp(folder, clock: TestClock(Date()), mailer: nil, configure: { $0.mail = mail })
        var problems = ""
        do { _ = try await TestClient(app).get("/") } catch let error as ConfigurationError { problems = error.message }
        for name in ["AccountMail.resetLinkLifetime", "AccountMail.resetsPerUser", "AccountMail.sendTimeout", "AccountMail.queueCapacity"] {
            #expect(problems.contains(name), "\(name) in \(problems)")
        }
        #expect(!problems.contains("AccountMail.resetWindow"))
    }

    @Test func withPasswordSignInOffThereIsNoForgotPasswordEither() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let mailer = RecordingMailer()
        let (app, _) = try makeApp(folder, clock: TestClock(Date()), mailer: mailer, passwords: false)
        let client = TestClient(app)
        #expect(try await client.get("/password/forgot").status == .notFound)
        #expect(try await client.post("/password/forgot", form: ["email": "user@example.com"]).status == .notFound)
        #expect(!(try await client.get("/signin").text.contains("Forgot your password")))
        try await Task.sleep(for: .milliseconds(200))
        #expect(mailer.messages.isEmpty)
    }

    @Test func aKnownAddressIsMailedALinkAndAnUnknownOneAnsweredAlike() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let mailer = RecordingMailer()
        let clock = TestClock(Date())
        let (app, _) = try makeApp(folder, clock: clock, mailer: mailer)
        let signInPage = try await TestClient(app).get("/signin")
        #expect(signInPage.text.contains(#"<a href="/password/forgot">Forgot your password?</a>"#))
        // The user is signed in elsewhere: the reset ends that session.
        let elsewhere = TestClient(app)
        try await elsewhere.signIn("user", "secret123")

        let known = try await forgot(TestClient(app), "USER@example.com")
        let unknown = try await forgot(TestClient(app), "nobody@example.com")
        #expect(known.status == .ok && unknown.status == .ok)
        #expect(known.text == unknown.text)
        #expect(known.headers.first(name: "Cache-Control") == "no-store")
        // Ann's, asked after both, comes second: the unknown address was sent nothing.
        #expect(try await forgot(TestClient(app), "ann@example.com").status == .ok)
        let sent = await mailer.messages(atLeast: 2)
        #expect(sent.map(\.to.description) == ["user@example.com", "ann@example.com"])
        let message = try #require(sent.first)
        #expect(message.to.description == "user@example.com" && message.subject == "Reset your password")
        let url = try link(in: message.body)

        let browser = TestClient(app)
        let set = try await use(url, in: browser, password: "a fresh phrase of mine")
        #expect(set.status == .seeOther)
        #expect(try await browser.get("/me").text == "user")
        #expect(try await elsewhere.get("/me").status != .ok)
        let ann = try await SetupLinkWalk.admin(app)
        let audit = try await ann.get("/admin/audit?user=user", headers: ["Accept": "application/json"]).text
        #expect(audit.contains("reset_link_mailed") && audit.contains("password_set") && audit.contains("by reset link"))
        // Used once.
        #expect(try await use(url, in: TestClient(app), password: "another phrase of mine").status == .gone)
    }

    @Test func usingAResetLinkEndsTheUsersApiTokensToo() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let mailer = RecordingMailer()
        let database = try await Database.sqlite(path: folder.file("accounts.db"))
        let (app, _) = try makeApp(folder, clock: TestClock(Date()), mailer: mailer, database: database)
        let owner = TestClient(app)
        try await owner.signIn("user", "secret123")
        let token = try await owner.makeApiToken(password: "secret123")
        let script = TestClient(app)
        let bearer: HttpHeaders = ["Accept": "application/json", "Authorization": "Bearer \(token)"]
        #expect(try await script.get("/api/me", headers: bearer).status == .ok)
        _ = try await forgot(TestClient(app), "user@example.com")
        let url = try link(in: try #require(await mailer.messages(atLeast: 1).first).body)
        #expect(try await use(url, in: TestClient(app), password: "a fresh phrase of mine").status == .seeOther)
        #expect(try await script.get("/api/me", headers: bearer).status == .unauthorized)
        #expect(try await owner.get("/me").status != .ok)
        await database.shutdown()
    }

    @Test func aResetLinkLivesAnHour() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let mailer = RecordingMailer()
        let clock = TestClock(Date())
        let (app, _) = try makeApp(folder, clock: clock, mailer: mailer)
        _ = try await forgot(TestClient(app), "user@example.com")
        let url = try link(in: try #require(await mailer.messages(atLeast: 1).first).body)
        clock.advance(seconds: 3601)
        #expect(try await use(url, in: TestClient(app), password: "a fresh phrase of mine").status == .gone)
    }

    @Test func disabledUsersAndUsersWithoutAPasswordAreSentNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let mailer = RecordingMailer()
        let (app, _) = try makeApp(folder, clock: TestClock(Date()), mailer: mailer)
        let ann = try await SetupLinkWalk.admin(app)
        #expect(try await ann.post("/admin/users/disable", form: ["username": "user"]).status == .seeOther)
        let disabled = try await forgot(TestClient(app), "user@example.com")
        let passwordless = try await forgot(TestClient(app), "sso@example.com")
        #expect(disabled.status == .ok && passwordless.status == .ok)
        try await expectNothingSentBefore(app, mailer)
    }

    @Test func aUserIsSentAtMostThreeMessagesAnHour() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let mailer = RecordingMailer()
        let clock = TestClock(Date())
        let (app, _) = try makeApp(folder, clock: clock, mailer: mailer)
        for index in 0..<5 {
            let client = TestClient(app)
            client.remoteAddress = "192.0.2.\(index + 1)"
            #expect(try await forgot(client, "user@example.com").status == .ok)
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(await mailer.messages(atLeast: 3).count == 3)
        clock.advance(seconds: 3601)
        _ = try await forgot(TestClient(app), "user@example.com")
        #expect(await mailer.messages(atLeast: 4).count == 4)
    }

    @Test func aClientAddressGetsTheSignInThrottlesLimitsWithoutLosingItsSignIn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let mailer = RecordingMailer()
        var limits = SignInThrottle.Limits()
        limits.failuresPerAddress = 3
        let (app, _) = try makeApp(folder, clock: TestClock(Date()), mailer: mailer, limits: limits)
        let client = TestClient(app)
        for _ in 0..<3 { #expect(try await forgot(client, "nobody@example.com").status == .ok) }
        let refused = try await forgot(client, "user@example.com")
        #expect(refused.status == .tooManyRequests && refused.headers.first(name: "Retry-After") != nil)
        #expect(refused.text.contains("Too many requests"))
        // Its own count: the address still signs in.
        try await client.signIn("user", "secret123")
        #expect(try await client.get("/me").text == "user")
    }

    @Test func hostileAddressesAreRefusedWithAMessageAndSendNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let mailer = RecordingMailer()
        let (app, _) = try makeApp(folder, clock: TestClock(Date()), mailer: mailer)
        for hostile in ["user@example.com\r\nBcc: eve@example.com", "user@example.com\u{202E}", "u\u{0301}ser@example.com", String(repeating: "a", count: 5000) + "@example.com", ""] {
            let answer = try await forgot(TestClient(app), hostile)
            #expect(answer.status == .unprocessableEntity, "\(hostile.prefix(40))")
            #expect(answer.text.contains("field-error"))
        }
        // Without the CSRF token: refused as every form is.
        let forged = TestClient(app)
        forged.sendsCsrfToken = false
        #expect(try await forged.post("/password/forgot", form: ["email": "user@example.com"]).status == .forbidden)
        try await expectNothingSentBefore(app, mailer)
    }

    @Test func whileMailFailsEveryAddressIsAnswered503Alike() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let mailer = RecordingMailer(failure: MailError("mail.example.com:587: connection refused"))
        let (app, _) = try makeApp(folder, clock: TestClock(Date()), mailer: mailer)
        // The first message is taken, and fails in the background.
        #expect(try await forgot(TestClient(app), "user@example.com").status == .ok)
        try await Task.sleep(for: .milliseconds(300))
        let known = try await forgot(TestClient(app), "user@example.com")
        let unknown = try await forgot(TestClient(app), "nobody@example.com")
        #expect(known.status == .serviceUnavailable && unknown.status == .serviceUnavailable)
        #expect(known.text == unknown.text && known.headers.first(name: "Retry-After") != nil)
    }
}
