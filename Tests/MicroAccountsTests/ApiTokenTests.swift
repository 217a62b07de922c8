import Crypto
import Foundation
import Micro
@testable import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import SQLKit
import Testing

/// API tokens through the test client: the pages, `Authorization: Bearer`, and the store, in
/// memory and in a real SQLite file.
@Suite struct ApiTokenTests {
    /// An app whose users are in SQLite (`ann` an admin, `user` not), its token store, the
    /// clock it runs on and the database (with `.sqlite`).
    struct Fixture {
        let app: App
        let users: SqliteUserStore
        let clock: TestClock
        let database: Database?
        let folder: TemporaryFolder

        func close() async {
            await database?.shutdown()
            folder.remove()
        }
    }

    private func makeFixture(_ kind: DataStoreKind) async throws -> Fixture {
        let folder = try TemporaryFolder()
        try folder.write("views/layout.mustache", "<main>{{#flashMessages}}<p class=\"flash\">{{message}}</p>{{/flashMessages}}{{{yield}}}</main>")
        let clock = TestClock()
        let app = isolatedApp {
            $0.views = folder.file("views")
            $0.clock = { clock.now }
        }
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann Smith", roles: ["admin"])
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        var database: Database?
        switch kind {
        case .memory:
            var accounts = Accounts()
            accounts.apiTokens.store = MemoryApiTokenStore()
            app.use(accounts)
        case .sqlite:
            let opened = try await Database.sqlite(path: folder.file("app.db"))
            app.use(Accounts(database: opened))
            database = opened
        }
        app.get("/me") { request in ["user": try request.authenticate().username] }
        app.post("/me") { request in ["user": try request.authenticate().username] }
        return Fixture(app: app, users: users, clock: clock, database: database, folder: folder)
    }

    private static let json: HttpHeaders = ["Accept": "application/json"]

    private static func bearer(_ token: String) -> HttpHeaders {
        ["Accept": "application/json", "Authorization": "Bearer " + token]
    }

    /// Makes a token through the form (read-only unless `scopes` says otherwise); returns it as
    /// the page shows it.
    private func makeToken(
        _ client: TestClient, name: String = "deploy script", days: String? = nil, scopes: String = "", password: String = "ann-password"
    ) async throws -> String {
        var form: KeyValuePairs<String, String> = ["name": name, "scopes": scopes, "current_password": password]
        if let days { form = ["name": name, "expires_in_days": days, "scopes": scopes, "current_password": password] }
        let page = try await client.post("/account/tokens", form: form)
        #expect(page.status == .ok, "\(name): \(page.text.suffix(300))")
        return try #require(Self.token(in: page.text))
    }

    private static func token(in page: String) -> String? {
        guard let range = page.range(of: #"data-token="micro_[A-Za-z0-9_-]+""#, options: .regularExpression) else { return nil }
        return String(page[range].dropFirst("data-token=\"".count).dropLast())
    }

    private func signedIn(_ app: App, _ name: String = "ann", _ password: String = "ann-password") async throws -> TestClient {
        let client = TestClient(app)
        try await client.signIn(name, password)
        return client
    }

    @Test(arguments: DataStoreKind.allCases)
    func madeListedShownOnceAndRevoked(_ kind: DataStoreKind) async throws {
        let fixture = try await makeFixture(kind)
        defer { Task { await fixture.close() } }
        let browser = try await signedIn(fixture.app)
        #expect(try await browser.get("/account").text.contains(#"href="/account/tokens""#))
        let form = try await browser.get("/account/tokens")
        #expect(form.text.contains(#"name="name""#) && form.text.contains(#"name="expires_in_days""#) && form.text.contains(#"value="90""#))
        let token = try await makeToken(browser)
        #expect(token.hasPrefix("micro_") && token.count == ApiTokenSecret.length)
        // 256 bits after the prefix: 43 base64url characters.
        #expect(Base64Url.decode(String(token.dropFirst(6)))?.count == 32)
        let list = try await browser.get("/account/tokens")
        #expect(list.text.contains("deploy script") && list.text.contains("never"))
        #expect(!list.text.contains(token), "shown once")
        #expect(!list.text.contains("data-token="))
        let listed = try await browser.get("/account/tokens", headers: Self.json)
        let entries = try listed.decode([ListedApiToken].self)
        #expect(entries.count == 1 && entries[0].name == "deploy script" && entries[0].token == nil && entries[0].lastUsedAt == nil)
        #expect(entries[0].expiresAt == AccountTime.iso(1_700_000_000 + 90 * 86_400))
        #expect(entries[0].scopes == ["read"], "read-only unless asked")
        let id = try #require(entries.first?.id)
        // The script works with it.
        let script = TestClient(fixture.app)
        #expect(try await script.get("/me", headers: Self.bearer(token)).text == #"{"user":"ann"}"#)
        // Revoked: dead at once.
        let revoked = try await browser.post("/account/tokens/\(id)/revoke", form: [:])
        #expect(revoked.status == .seeOther && revoked.location == "/account/tokens")
        #expect(try await browser.get("/account/tokens").text.contains("The token has been revoked."))
        let refused = try await script.get("/me", headers: Self.bearer(token))
        #expect(refused.status == .unauthorized)
        #expect(refused.text.contains("unknown, expired or revoked"))
        #expect(refused.headers.first(name: "WWW-Authenticate")?.hasPrefix("Bearer") == true)
        #expect(try await browser.get("/account/tokens", headers: Self.json).decode([ListedApiToken].self).isEmpty)
        // Revoking twice finds nothing.
        #expect(try await browser.post("/account/tokens/\(id)/revoke", form: [:]).status == .notFound)
        // The memory log keeps events by the real clock, not the test's: read from the table.
        guard kind == .sqlite else { return }
        let events = try await browser.get("/account/activity", headers: Self.json).text
        #expect(events.contains(#""event":"token_created""#) && events.contains(#""event":"token_revoked""#))
        #expect(!events.contains(token))
    }

    /// `curl -H 'Authorization: Bearer …'` asks for no JSON: the token opens the page all the
    /// same, and a bad one is a 401, not a redirect to the sign-in page. No browser adds such
    /// a header by itself, so no cross-site page can make one send it.
    @Test func aTokenWorksOnARequestThatAsksForNoJson() async throws {
        let fixture = try await makeFixture(.memory)
        defer { Task { await fixture.close() } }
        fixture.app.get("/page") { request in "page for \(try request.authenticate().username)" }
        let token = try await makeToken(try await signedIn(fixture.app), scopes: "write")
        let script = TestClient(fixture.app)
        let page = try await script.get("/page", headers: ["Authorization": "Bearer " + token])
        #expect(page.status == .ok)
        #expect(page.text == "page for ann")
        #expect(page.headers.first(name: "Set-Cookie") == nil)
        #expect(page.headers.first(name: "Cache-Control")?.contains("no-store") == true)
        let wrong = try await script.get("/page", headers: ["Authorization": "Bearer micro_" + String(repeating: "x", count: 43)])
        #expect(wrong.status == .unauthorized)
        // A form post with the token needs no CSRF token, as a script's JSON does.
        script.sendsCsrfToken = false
        #expect(try await script.post("/me", form: [:], headers: ["Authorization": "Bearer " + token]).text == #"{"user":"ann"}"#)
        // Without any header it is still the sign-in page's redirect.
        #expect(try await script.get("/page").location == "/signin")
    }

    @Test func onlyTheDigestIsStored() async throws {
        let fixture = try await makeFixture(.sqlite)
        defer { Task { await fixture.close() } }
        let browser = try await signedIn(fixture.app)
        let token = try await makeToken(browser)
        let database = try #require(fixture.database)
        let rows = try await database.sql.select().column("*").from("micro_api_tokens").all()
        #expect(rows.count == 1)
        let digest = try rows[0].decode(column: "digest", as: String.self)
        #expect(digest == SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined())
        for column in ["id", "digest", "username", "name"] {
            let value = try rows[0].decode(column: column, as: String.self)
            #expect(!value.contains(token.dropFirst(6).prefix(20)), "\(column)")
        }
        // Nor anywhere in the file.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: fixture.folder.file("app.db")))
        #expect(bytes.range(of: Data(token.dropFirst(6).utf8)) == nil)
    }

    @Test(arguments: DataStoreKind.allCases)
    func theFiftyFirstLiveTokenIsRefused(_ kind: DataStoreKind) async throws {
        let fixture = try await makeFixture(kind)
        defer { Task { await fixture.close() } }
        let browser = try await signedIn(fixture.app)
        // Two that expire tomorrow, and one revoked: they stop counting.
        _ = try await makeToken(browser, name: "short one", days: "1")
        _ = try await makeToken(browser, name: "short two", days: "1")
        _ = try await makeToken(browser, name: "revoked")
        let listed = try await browser.get("/account/tokens", headers: Self.json).decode([ListedApiToken].self)
        let revokedId = try #require(listed.first { $0.name == "revoked" }?.id)
        #expect(try await browser.post("/account/tokens/\(revokedId)/revoke", form: [:]).status == .seeOther)
        for index in 0..<48 { _ = try await makeToken(browser, name: "token \(index)") }
        let refused = try await browser.post("/account/tokens", form: ["name": "one too many", "current_password": "ann-password"])
        #expect(refused.status == .unprocessableEntity)
        #expect(refused.text.contains("the most there may be"))
        #expect(Self.token(in: refused.text) == nil)
        #expect(refused.text.contains(#"value="one too many""#), "what was typed is kept")
        fixture.clock.advance(seconds: 86_401)
        let later = try await signedIn(fixture.app)
        _ = try await makeToken(later, name: "room again")
        _ = try await makeToken(later, name: "and once more")
        #expect(try await later.post("/account/tokens", form: ["name": "no more", "current_password": "ann-password"]).status == .unprocessableEntity)
        #expect(try await later.get("/account/tokens", headers: Self.json).decode([ListedApiToken].self).count == 50)
        // Another user has a budget of their own.
        _ = try await makeToken(try await signedIn(fixture.app, "user", "secret123"), password: "secret123")
        if let database = fixture.database {
            // The dead ones were pruned as tokens were added: the table stays bounded.
            let rows = try await database.sql.select().column("id").from("micro_api_tokens").all()
            #expect(rows.count == 51)
        }
    }

    @Test(arguments: DataStoreKind.allCases)
    func tokensExpireByTheClock(_ kind: DataStoreKind) async throws {
        let fixture = try await makeFixture(kind)
        defer { Task { await fixture.close() } }
        let browser = try await signedIn(fixture.app)
        for days in ["0", "366", "-1", "abc", "1e2", "٣", String(repeating: "9", count: 400)] {
            let refused = try await browser.post("/account/tokens", form: ["name": "x", "expires_in_days": days, "current_password": "ann-password"])
            #expect(refused.status == .unprocessableEntity, "\(days)")
            #expect(refused.text.contains("Choose an expiry from 1 to 365 days."), "\(days)")
        }
        let token = try await makeToken(browser, days: "1")
        let script = TestClient(fixture.app)
        #expect(try await script.get("/me", headers: Self.bearer(token)).status == .ok)
        fixture.clock.advance(seconds: 86_399)
        #expect(try await script.get("/me", headers: Self.bearer(token)).status == .ok)
        fixture.clock.advance(seconds: 1)
        #expect(try await script.get("/me", headers: Self.bearer(token)).status == .unauthorized)
        let later = try await signedIn(fixture.app)
        #expect(try await later.get("/account/tokens", headers: Self.json).decode([ListedApiToken].self).isEmpty)
        let long = try await makeToken(later, days: "365")
        fixture.clock.advance(seconds: 365 * 86_400 - 1)
        #expect(try await script.get("/me", headers: Self.bearer(long)).status == .ok)
        fixture.clock.advance(seconds: 1)
        #expect(try await script.get("/me", headers: Self.bearer(long)).status == .unauthorized)
    }

    @Test(arguments: DataStoreKind.allCases)
    func lastUsedIsWrittenAtMostOnceAMinute(_ kind: DataStoreKind) async throws {
        let fixture = try await makeFixture(kind)
        defer { Task { await fixture.close() } }
        let browser = try await signedIn(fixture.app)
        let token = try await makeToken(browser)
        func lastUsed() async throws -> String? {
            try await browser.get("/account/tokens", headers: Self.json).decode([ListedApiToken].self).first?.lastUsedAt
        }
        let script = TestClient(fixture.app)
        let start = Int64(fixture.clock.now.timeIntervalSince1970)
        #expect(try await script.get("/me", headers: Self.bearer(token)).status == .ok)
        #expect(try await lastUsed() == AccountTime.iso(start))
        fixture.clock.advance(seconds: 30)
        #expect(try await script.get("/me", headers: Self.bearer(token)).status == .ok)
        fixture.clock.advance(seconds: 29)
        #expect(try await script.get("/me", headers: Self.bearer(token)).status == .ok)
        #expect(try await lastUsed() == AccountTime.iso(start))
        fixture.clock.advance(seconds: 2)
        #expect(try await script.get("/me", headers: Self.bearer(token)).status == .ok)
        #expect(try await lastUsed() == AccountTime.iso(start + 61))
        #expect(try await browser.get("/account/tokens").text.contains(#"<time datetime="\#(AccountTime.iso(start + 61))">"#))
    }

    @Test func aTokenActsWithItsUsersCurrentRoles() async throws {
        let fixture = try await makeFixture(.sqlite)
        defer { Task { await fixture.close() } }
        let annToken = try await makeToken(try await signedIn(fixture.app))
        let userToken = try await makeToken(try await signedIn(fixture.app, "user", "secret123"), password: "secret123")
        let script = TestClient(fixture.app)
        #expect(try await script.get("/admin/audit", headers: Self.bearer(annToken)).status == .ok)
        #expect(try await script.get("/admin/audit", headers: Self.bearer(userToken)).status == .forbidden)
        // Roles changed in the store: the next request has the new ones, cache or not.
        try fixture.users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann Smith", roles: [])
        #expect(try await script.get("/admin/audit", headers: Self.bearer(annToken)).status == .forbidden)
        try fixture.users.save(username: "user", passwordHash: TestHashes.secret123, name: nil, roles: ["admin"])
        #expect(try await script.get("/admin/audit", headers: Self.bearer(userToken)).status == .ok)
        // A changed password does not end a token (documented on ApiTokenSettings).
        try fixture.users.save(username: "user", passwordHash: TestHashes.annPassword, name: nil, roles: ["admin"])
        #expect(try await script.get("/me", headers: Self.bearer(userToken)).text == #"{"user":"user"}"#)
        // A removed user's tokens stop at once.
        #expect(try fixture.users.remove(username: "user"))
        let removed = try await script.get("/me", headers: Self.bearer(userToken))
        #expect(removed.status == .unauthorized)
        #expect(try await script.get("/me", headers: Self.bearer(annToken)).status == .ok)
    }

    @Test(arguments: DataStoreKind.allCases)
    func aTokenIsNoSessionNeedsNoCsrfTokenButRefusesOtherSites(_ kind: DataStoreKind) async throws {
        let fixture = try await makeFixture(kind)
        defer { Task { await fixture.close() } }
        let browser = try await signedIn(fixture.app)
        let token = try await makeToken(browser, scopes: "write")
        let script = TestClient(fixture.app)
        script.sendsCsrfToken = false
        let answer = try await script.get("/me", headers: Self.bearer(token))
        #expect(answer.status == .ok)
        #expect(answer.headers.first(name: "Set-Cookie") == nil)
        #expect(answer.headers.first(name: "Cache-Control") == "no-store")
        #expect(answer.headers["Vary"].contains { $0.contains("Authorization") })
        let posted = try await script.post("/me", form: ["a": "b"], headers: Self.bearer(token))
        #expect(posted.status == .ok && posted.headers.first(name: "Set-Cookie") == nil)
        var crossSite = Self.bearer(token)
        crossSite.add(name: "Origin", value: "https://evil.example")
        #expect(try await script.post("/me", form: ["a": "b"], headers: crossSite).status == .forbidden)
        var fetched = Self.bearer(token)
        fetched.add(name: "Sec-Fetch-Site", value: "cross-site")
        #expect(try await script.post("/me", form: ["a": "b"], headers: fetched).status == .forbidden)
        // The 401 too is for this token only.
        let refused = try await script.get("/me", headers: Self.bearer("micro_" + String(repeating: "A", count: 43)))
        #expect(refused.status == .unauthorized)
        #expect(refused.headers.first(name: "Set-Cookie") == nil && refused.headers.first(name: "Cache-Control") == "no-store")
        // A token cannot make tokens; it may revoke one, with no CSRF token and no cookie.
        #expect(try await script.post("/account/tokens", form: ["name": "more", "current_password": "ann-password"], headers: Self.bearer(token)).status == .forbidden)
        let id = try #require(try await script.get("/account/tokens", headers: Self.bearer(token)).decode([ListedApiToken].self).first?.id)
        let revoked = try await script.post("/account/tokens/\(id)/revoke", form: [:], headers: Self.bearer(token))
        #expect(revoked.status == .ok && revoked.headers.first(name: "Set-Cookie") == nil)
        #expect(script.cookies.isEmpty)
        #expect(try await script.get("/me", headers: Self.bearer(token)).status == .unauthorized)
        // Bearer is read on any request: the revoked token is a 401 there too, never a page.
        let page = try await script.get("/me", headers: ["Authorization": "Bearer " + token])
        #expect(page.status == .unauthorized)
    }

    @Test func wrongTokensAreThrottledByAddress() async throws {
        let fixture = try await makeFixture(.memory)
        defer { Task { await fixture.close() } }
        let token = try await makeToken(try await signedIn(fixture.app))
        let script = TestClient(fixture.app)
        script.remoteAddress = "203.0.113.9"
        let wrong = ["micro_" + String(repeating: "B", count: 43), "micro_short", "not a token", "micro_" + String(repeating: "é", count: 43), ""]
        for attempt in 0..<20 {
            #expect(try await script.get("/me", headers: Self.bearer(wrong[attempt % wrong.count])).status == .unauthorized, "\(attempt)")
        }
        let locked = try await script.get("/me", headers: Self.bearer(wrong[0]))
        #expect(locked.status == .tooManyRequests)
        #expect(locked.headers.first(name: "Retry-After").flatMap(Int.init).map { $0 > 0 } == true)
        // Right or wrong, from that address: the answer tells no guess from another.
        #expect(try await script.get("/me", headers: Self.bearer(token)).status == .tooManyRequests)
        let elsewhere = TestClient(fixture.app)
        elsewhere.remoteAddress = "198.51.100.7"
        #expect(try await elsewhere.get("/me", headers: Self.bearer(token)).status == .ok)
        fixture.clock.advance(seconds: 15 * 60 + 1)
        #expect(try await script.get("/me", headers: Self.bearer(token)).status == .ok)
    }

    @Test(arguments: DataStoreKind.allCases)
    func anotherUsersTokenIsNotFound(_ kind: DataStoreKind) async throws {
        let fixture = try await makeFixture(kind)
        defer { Task { await fixture.close() } }
        let ann = try await signedIn(fixture.app)
        let token = try await makeToken(ann)
        let id = try #require(try await ann.get("/account/tokens", headers: Self.json).decode([ListedApiToken].self).first?.id)
        let other = try await signedIn(fixture.app, "user", "secret123")
        #expect(try await other.post("/account/tokens/\(id)/revoke", form: [:]).status == .notFound)
        #expect(try await other.post("/account/tokens/unknown/revoke", form: [:]).status == .notFound)
        #expect(try await other.post("/account/tokens/\(String(repeating: "x", count: 300))/revoke", form: [:]).status == .notFound)
        #expect(try await TestClient(fixture.app).get("/me", headers: Self.bearer(token)).status == .ok, "still alive")
        // Signed out: sign in first; scripts 401; every POST needs the CSRF token.
        let nobody = TestClient(fixture.app)
        #expect(try await nobody.get("/account/tokens").location == "/signin")
        #expect(try await nobody.get("/account/tokens", headers: Self.json).status == .unauthorized)
        ann.sendsCsrfToken = false
        #expect(try await ann.post("/account/tokens", form: ["name": "forged", "current_password": "ann-password"]).status == .forbidden)
        #expect(try await ann.post("/account/tokens/\(id)/revoke", form: [:]).status == .forbidden)
    }

    @Test func hostileNamesAreRefusedOrEscaped() async throws {
        let fixture = try await makeFixture(.memory)
        defer { Task { await fixture.close() } }
        let browser = try await signedIn(fixture.app)
        let refused = [
            "", "   ", "a\u{202E}gnp.exe", "zero\u{200B}width", "line\nbreak", "tab\there", "nul\u{0}", "\u{E000}private",
            String(repeating: "n", count: 65), String(repeating: "\u{1F468}\u{200D}\u{1F469}", count: 2), "sep\u{2028}arator",
        ]
        for name in refused {
            let answer = try await browser.post("/account/tokens", form: ["name": name, "current_password": "ann-password"])
            #expect(answer.status == .unprocessableEntity, "\(name.unicodeScalars.map { String($0.value, radix: 16) })")
            #expect(answer.text.contains("Give the token a name"))
        }
        for (label, text) in HostileText.all.prefix(12) {
            let name = String(text.prefix(ApiTokenLimits.nameLength))
            let answer = try await browser.post("/account/tokens", form: ["name": name, "current_password": "ann-password"])
            guard answer.status == .ok else {
                #expect(answer.status == .unprocessableEntity, "\(label)")
                continue
            }
            #expect(!answer.text.contains("<meta"), "\(label)")
        }
        let list = try await browser.get("/account/tokens")
        #expect(list.status == .ok && !list.text.contains("<meta"))
        // Composed alike: a name in NFD is kept in NFC.
        _ = try await makeToken(browser, name: "  cafe\u{301}  ")
        #expect(try await browser.get("/account/tokens", headers: Self.json).text.contains("\"café\""))
        // Bytes that are no UTF-8: a 4xx or a name without them, never a 500.
        let raw = try await browser.request(
            .POST, "/account/tokens", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array("name=%FF%FEab%C0".utf8))
        #expect(raw.status.code < 500)
    }

    @Test func makingATokenTakesTheCurrentPasswordCheckedAsASignInIs() async throws {
        let fixture = try await makeFixture(.memory)
        defer { Task { await fixture.close() } }
        let browser = try await signedIn(fixture.app)
        #expect(try await browser.get("/account/tokens").text.contains(#"name="current_password""#))
        for password in ["", "wrong", "ann-password\u{0}"] {
            let refused = try await browser.post("/account/tokens", form: ["name": "stolen cookie", "current_password": password])
            #expect(refused.status == .unprocessableEntity)
            #expect(refused.text.contains("That is not your current password."))
            #expect(Self.token(in: refused.text) == nil)
            #expect(!refused.text.contains("ann-password"), "never a password back in the page")
        }
        #expect(try await browser.get("/account/tokens", headers: Self.json).decode([ListedApiToken].self).isEmpty)
        // The same budget as the sign-in form: after 5 wrong ones, a 429 even for the right one.
        _ = try await browser.post("/account/tokens", form: ["name": "x", "current_password": "wrong again"])
        _ = try await browser.post("/account/tokens", form: ["name": "x", "current_password": "and again"])
        #expect(try await browser.post("/account/tokens", form: ["name": "x", "current_password": "ann-password"]).status == .tooManyRequests)
    }

    @Test func withCredentialsYmlThePageSaysWhyAndHasNoForm() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.write("views/layout.mustache", "<main>{{{yield}}}</main>")
        let app = isolatedApp { $0.views = folder.file("views") }
        var authentication = Authentication(users: try UserStoreKind.yaml.make(in: folder))
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        var accounts = Accounts()
        accounts.apiTokens.store = MemoryApiTokenStore()
        app.use(accounts)
        let browser = try await signedIn(app, "user", "secret123")
        let page = try await browser.get("/account/tokens")
        #expect(page.status == .ok && page.text.contains("managed in credentials.yml") && !page.text.contains(#"name="name""#))
        #expect(try await browser.post("/account/tokens", form: ["name": "x"]).status == .forbidden)
        // Off without a store.
        let plain = isolatedApp { $0.views = folder.file("views") }
        let store = try SqliteUserStore(path: folder.file("u.db"), create: true)
        try store.save(username: "bob", passwordHash: TestHashes.secret123, name: nil)
        var plainAuthentication = Authentication(users: store)
        plainAuthentication.hasher = PasswordHasher(threads: 1)
        plain.use(plainAuthentication)
        plain.use(Accounts())
        let bob = try await signedIn(plain, "bob", "secret123")
        #expect(try await bob.get("/account/tokens").text.contains("API tokens are not turned on"))
    }
}
