import Foundation
import Micro
import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// The account pages through the test client: password, sessions, activity, audit.
@Suite struct AccountsTests {
    private func makeApp(_ kind: UserStoreKind, folder: TemporaryFolder, admins: Bool = true) throws -> App {
        // A layout of the app's own, which the account pages are shown in (with the flash).
        try folder.write("views/layout.mustache", "<main>{{#flashMessages}}<p class=\"flash\">{{message}}</p>{{/flashMessages}}{{{yield}}}</main>")
        let app = isolatedApp { $0.views = folder.file("views") }
        let users = try kind.make(in: folder)
        if kind == .sqlite, admins, let store = users as? SqliteUserStore {
            try store.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann Smith", roles: ["admin"])
        }
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        app.use(Accounts())
        app.get("/me") { request in try request.authenticate().username }
        return app
    }

    private func client(_ app: App, agent: String) -> TestClient {
        let client = TestClient(app)
        client.defaultHeaders = ["User-Agent": agent]
        return client
    }

    static let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
    static let android = "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"

    @Test func signedOutPagesAskForSignInAndScriptsGet401() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = TestClient(try makeApp(.sqlite, folder: folder))
        for path in ["/account", "/account/password", "/account/sessions", "/account/activity", "/admin/audit"] {
            #expect(try await client.get(path).location == "/signin", "\(path)")
            #expect(try await client.get(path, headers: ["Accept": "application/json"]).status == .unauthorized, "\(path)")
        }
        try await client.signIn("user", "secret123")
        let page = try await client.get("/account/sessions")
        #expect(page.status == .ok)
        // Every POST needs the CSRF token.
        client.sendsCsrfToken = false
        #expect(try await client.post("/account/sessions/sign-out-others", form: [:]).status == .forbidden)
    }

    @Test func changingThePasswordKeepsThisBrowserAndEndsTheOthers() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = try makeApp(.sqlite, folder: folder)
        let laptop = client(app, agent: Self.firefox)
        let phone = client(app, agent: Self.android)
        try await laptop.signIn("ann", "ann-password")
        try await phone.signIn("ann", "ann-password")
        let before = laptop.cookies["micro.session"]?.value
        let form = try await laptop.get("/account/password")
        #expect(form.text.contains(#"name="current_password""#) && form.text.contains(#"name="new_password_confirmation""#))
        let changed = try await laptop.post(
            "/account/password",
            form: ["current_password": "ann-password", "new_password": "a much better one", "new_password_confirmation": "a much better one"])
        #expect(changed.status == .seeOther)
        #expect(changed.location == "/account")
        #expect(laptop.cookies["micro.session"]?.value != before)
        #expect(try await laptop.get("/account").text.contains("Your password has been changed."))
        #expect(try await laptop.get("/me").text == "ann")
        #expect(try await phone.get("/me").location == "/signin")
        let other = TestClient(app)
        await #expect(throws: TestClientError.self) { try await other.signIn("ann", "ann-password") }
        try await other.signIn("ann", "a much better one")
        let events = try await laptop.get("/account/activity", headers: ["Accept": "application/json"]).text
        #expect(events.contains(#""event":"password_changed""#))
        #expect(!events.contains("a much better one"))
    }

    @Test func refusedNewPasswordsNameTheRuleAndChangeNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = try makeApp(.sqlite, folder: folder)
        let client = TestClient(app)
        try await client.signIn("ann", "ann-password")
        let cases: [(String, String, String)] = [
            ("short", "short", "at least 8 characters"),
            (String(repeating: "ü", count: 40), String(repeating: "ü", count: 40), "at most 72 bytes"),
            ("ANN", "ANN", "at least 8"),
            ("password1", "password1", "most commonly used"),
            ("letmein1", "letmein1", "most commonly used"),
            ("a fine new one", "a fine new 0ne", "differ"),
        ]
        for (new, again, words) in cases {
            let answer = try await client.post(
                "/account/password", form: ["current_password": "ann-password", "new_password": new, "new_password_confirmation": again])
            #expect(answer.status == .unprocessableEntity, "\(new)")
            #expect(answer.text.contains(words), "\(new): \(answer.text)")
            #expect(!answer.text.contains("ann-password") && !answer.text.contains(new), "no password in the page")
        }
        let named = try await client.post(
            "/account/password", form: ["current_password": "ann-password", "new_password": "Ann-Smith", "new_password_confirmation": "Ann-Smith"])
        #expect(named.status == .seeOther, "a name that is not the username is fine")
    }

    @Test func aWrongCurrentPasswordCountsAsAFailedSignIn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = try makeApp(.sqlite, folder: folder)
        let client = TestClient(app)
        try await client.signIn("ann", "ann-password")
        for _ in 0..<5 {
            let answer = try await client.post(
                "/account/password", form: ["current_password": "guess", "new_password": "a fine new one", "new_password_confirmation": "a fine new one"])
            #expect(answer.status == .unprocessableEntity)
            #expect(answer.text.contains("That is not your current password."))
        }
        let locked = try await client.post(
            "/account/password",
            form: ["current_password": "ann-password", "new_password": "a fine new one", "new_password_confirmation": "a fine new one"])
        #expect(locked.status == .tooManyRequests)
        #expect(locked.headers.first(name: "Retry-After") != nil)
        let audit = try await client.get("/admin/audit", headers: ["Accept": "application/json"]).text
        #expect(audit.components(separatedBy: #""event":"sign_in_failed""#).count - 1 == 5)
        #expect(audit.contains(#""event":"locked_out""#))
    }

    @Test func aUsersFileHasNoPasswordForm() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = TestClient(try makeApp(.yaml, folder: folder))
        try await client.signIn("user", "secret123")
        let page = try await client.get("/account/password")
        #expect(page.text.contains("managed in credentials.yml"))
        #expect(!page.text.contains(#"name="new_password""#))
        let refused = try await client.post(
            "/account/password", form: ["current_password": "secret123", "new_password": "a fine new one", "new_password_confirmation": "a fine new one"])
        #expect(refused.status == .forbidden)
        #expect(try await client.get("/account/sessions").text.contains("data-current"))
    }

    @Test func theSessionsPageListsEachSessionAndEndsOne() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = try makeApp(.sqlite, folder: folder)
        let laptop = client(app, agent: Self.firefox)
        let phone = client(app, agent: Self.android)
        let stranger = client(app, agent: "curl/8.5.0")
        try await laptop.signIn("ann", "ann-password")
        try await phone.signIn("ann", "ann-password")
        try await stranger.signIn("user", "secret123")
        let page = try await laptop.get("/account/sessions").text
        #expect(page.components(separatedBy: "data-session-id=").count - 1 == 2)
        #expect(page.contains("Firefox 128 on Linux") && page.contains("Chrome 131 on Android"))
        #expect(page.contains(#"title="\#(Self.android)""#))
        #expect(page.contains("This device"))
        #expect(page.contains(#"<time datetime=""#))
        struct Listed: Decodable { var id: String; var browser: String; var address: String; var signedInAt: String; var lastSeenAt: String; var current: Bool }
        let listed = try await laptop.get("/account/sessions", headers: ["Accept": "application/json"]).decode([Listed].self)
        #expect(listed.count == 2)
        let phoneEntry = try #require(listed.first { !$0.current })
        #expect(phoneEntry.browser == "Chrome 131 on Android")
        #expect(phoneEntry.address == "127.0.0.1")
        #expect(!page.contains(phone.cookies["micro.session"]?.value ?? "-"))
        // Another user's id, or an unknown one: 404, nothing ended.
        #expect(try await stranger.post("/account/sessions/\(phoneEntry.id)/sign-out", form: [:]).status == .notFound)
        #expect(try await laptop.post("/account/sessions/nonsense/sign-out", form: [:]).status == .notFound)
        #expect(try await phone.get("/me").text == "ann")
        let ended = try await laptop.post("/account/sessions/\(phoneEntry.id)/sign-out", form: [:])
        #expect(ended.status == .seeOther && ended.location == "/account/sessions")
        #expect(try await phone.get("/me").location == "/signin")
        #expect(try await laptop.get("/me").text == "ann")
        #expect(try await laptop.get("/account/sessions").text.components(separatedBy: "data-session-id=").count - 1 == 1)
    }

    @Test func signingOutTheOthersLeavesThisOne() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = try makeApp(.sqlite, folder: folder)
        let clients = (0..<3).map { _ in client(app, agent: Self.firefox) }
        for client in clients { try await client.signIn("ann", "ann-password") }
        #expect(try await clients[0].post("/account/sessions/sign-out-others", form: [:]).status == .seeOther)
        #expect(try await clients[0].get("/me").text == "ann")
        #expect(try await clients[1].get("/me").location == "/signin")
        #expect(try await clients[2].get("/me").location == "/signin")
        // Ended by time, they stay ended: even a cookie the registry never listed.
        try await clients[0].signOut()
        // A sign-in in the same second as "everywhere else" would be ended by it too.
        try await Task.sleep(for: .milliseconds(1100))
        let again = client(app, agent: Self.firefox)
        try await again.signIn("ann", "ann-password")
        #expect(try await again.get("/account/sessions").text.components(separatedBy: "data-session-id=").count - 1 == 1)
    }

    @Test func theActivityPageAndTheAudit() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = try makeApp(.sqlite, folder: folder)
        let ann = client(app, agent: Self.firefox)
        let user = TestClient(app)
        _ = try await user.post("/signin", form: ["username": "user", "password": "wrong"])
        _ = try await user.post("/signin", form: ["username": "<b>nobody</b>", "password": "wrong"])
        try await user.signIn("user", "secret123")
        try await ann.signIn("ann", "ann-password")
        let mine = try await user.get("/account/activity").text
        #expect(mine.contains(#"data-event="sign_in_failed""#) && mine.contains(#"data-event="signed_in""#))
        #expect(!mine.contains("nobody"))
        #expect(try await user.get("/admin/audit").status == .forbidden)
        let audit = try await ann.get("/admin/audit").text
        // Names that are no user's are listed apart, linked from the audit, never as typed.
        #expect(!audit.contains(#"data-user="unknown user""#) && audit.contains("?user=unknown%20user"))
        #expect(!audit.contains("nobody"))
        let strangers = try await ann.get("/admin/audit?user=unknown%20user").text
        #expect(strangers.contains(#"data-user="unknown user""#) && !strangers.contains("nobody"))
        let filtered = try await ann.get("/admin/audit?user=USER", headers: ["Accept": "application/json"]).text
        #expect(filtered.contains(#""user":"user""#) && !filtered.contains(#""user":"ann""#))
        try await user.signOut()
        #expect(try await ann.get("/admin/audit?user=user").text.contains(#"data-event="signed_out""#))
    }

    @Test func theRegistryKeepsAHundredSessionsPerUserAndForgetsExpiredOnes() async throws {
        let registry = MemorySessionRegistry()
        var dropped: [RegisteredSession] = []
        for index in 0..<101 {
            let entry = SessionEntry(id: "e\(index)", username: "ann", browser: "b", userAgent: "", address: "", signedInAt: Int64(index), lastSeenAt: Int64(index))
            dropped += try await registry.add(RegisteredSession(entry: entry, sessionId: "s\(index)", expiresAt: 1_000))
        }
        #expect(dropped.map(\.sessionId) == ["s0"])
        #expect(try await registry.sessions(of: "ann", now: 100, idle: 600, lifetime: 28_800).count == 100)
        #expect(try await registry.sessions(of: "ann", now: 100_000, idle: 600, lifetime: 28_800).isEmpty)
    }
}

@Suite struct UserAgentSummaryTests {
    @Test func browsersAndSystemsInWords() {
        let cases: [(String?, String)] = [
            (AccountsTests.firefox, "Firefox 128 on Linux"),
            (AccountsTests.android, "Chrome 131 on Android"),
            ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1", "Safari 17 on iPhone"),
            ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0", "Edge 131 on Windows"),
            ("curl/8.5.0", "curl 8.5"),
            (nil, "Unknown browser"), ("", "Unknown browser"), ("<script>", "Unknown browser"), ("python-requests/2.31", "Unknown browser"),
        ]
        for (agent, words) in cases { #expect(UserAgentSummary.describe(agent) == words, "\(agent ?? "nil")") }
    }
}
