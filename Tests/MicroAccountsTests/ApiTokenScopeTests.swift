import Foundation
import Micro
@testable import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import SQLKit
import Synchronization
import Testing

/// API token scopes: made on the form and by a script's form, shown on the tokens and users
/// pages, a read-only token refused any write before the app's code, the app's own scopes asked
/// by routes and groups, `request.authentication`, and tokens older than scopes.
@Suite struct ApiTokenScopeTests {
    struct Fixture {
        let app: App
        let database: Database?
        let folder: TemporaryFolder
        /// How many times a route or the app's before filter ran.
        let ran: Counter

        func close() async {
            await database?.shutdown()
            folder.remove()
        }
    }

    final class Counter: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func add() { count.withLock { $0 += 1 } }
    }

    /// The app's own scopes: `deploy` and `export`, and as many more as `extra` asks.
    private static func scopes(extra: Int = 0) -> [ApiTokenScope] {
        [ApiTokenScope("deploy", description: "Start a deployment."), ApiTokenScope("export", description: "Export the notes.")]
            + (0..<extra).map { ApiTokenScope("extra-\($0)", description: "Extra \($0).") }
    }

    private func makeFixture(_ kind: DataStoreKind = .memory, extraScopes: Int = 0) async throws -> Fixture {
        let folder = try TemporaryFolder()
        try folder.write("views/layout.mustache", "<main>{{{yield}}}</main>")
        let app = isolatedApp { $0.views = folder.file("views") }
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann Smith", roles: ["admin"])
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        var accounts: Accounts
        var database: Database?
        switch kind {
        case .memory:
            accounts = Accounts()
            accounts.apiTokens.store = MemoryApiTokenStore()
        case .sqlite:
            let opened = try await Database.sqlite(path: folder.file("app.db"))
            accounts = Accounts(database: opened)
            database = opened
        }
        accounts.apiTokens.scopes = Self.scopes(extra: extraScopes)
        app.use(accounts)
        let ran = Counter()
        app.before("/things") { _ in ran.add() }
        for method in [HttpMethod.GET, .OPTIONS, .POST, .PUT, .PATCH, .DELETE] {
            app.on(method, "/things") { request in
                ran.add()
                return ["user": try request.authenticate().username]
            }
        }
        app.post("/deploys") { request in ["deployed by": try request.requireScope("deploy").username] }
        app.group("/exports") { exports in
            exports.requireScope("export")
            exports.get("/") { request in ["exported for": request.currentUser?.username ?? "?"] }
        }
        app.get("/how") { request in request.authentication.description }
        return Fixture(app: app, database: database, folder: folder, ran: ran)
    }

    private static let json: HttpHeaders = ["Accept": "application/json"]

    private static func bearer(_ token: String, json: Bool = true) -> HttpHeaders {
        json ? ["Accept": "application/json", "Authorization": "Bearer " + token] : ["Authorization": "Bearer " + token]
    }

    private func signedIn(_ app: App, _ name: String = "ann", _ password: String = "ann-password") async throws -> TestClient {
        let client = TestClient(app)
        try await client.signIn(name, password)
        return client
    }

    /// Makes a token by the form, answered in JSON, with `scopes` as the form sends them (the
    /// field repeated); returns the answer.
    private func make(_ client: TestClient, _ scopes: [String], name: String = "script", password: String = "ann-password") async throws -> TestResponse {
        let fields = ["name=" + name, "current_password=" + password] + scopes.map { "scopes=" + $0.replacingOccurrences(of: " ", with: "+") }
        let body = fields.joined(separator: "&")
        return try await client.request(
            .POST, "/account/tokens", headers: ["Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded"],
            body: Array(body.utf8))
    }

    private func token(_ client: TestClient, _ scopes: [String], password: String = "ann-password") async throws -> ListedApiToken {
        let made = try await make(client, scopes, password: password)
        #expect(made.status == .created, "\(scopes): \(made.text.prefix(300))")
        return try made.decode(ListedApiToken.self)
    }

    @Test(arguments: DataStoreKind.allCases)
    func tokensAreMadeWithScopesOnTheFormAndByAScript(_ kind: DataStoreKind) async throws {
        let fixture = try await makeFixture(kind)
        defer { Task { await fixture.close() } }
        let browser = try await signedIn(fixture.app)
        let form = try await browser.get("/account/tokens").text
        #expect(form.contains(#"<input type="radio" name="scopes" value="read" checked>"#), "read-only unless chosen")
        #expect(form.contains(#"<input type="radio" name="scopes" value="write">"#))
        #expect(form.contains(#"<input type="checkbox" name="scopes" value="deploy">"#) && form.contains("Start a deployment."))
        #expect(form.contains(#"<input type="checkbox" name="scopes" value="export">"#) && form.contains("Export the notes."))
        // The page's form: the token's page shows its scopes, then the list does.
        let page = try await browser.post(
            "/account/tokens", form: ["name": "deployer", "scopes": "write", "scopes": "deploy", "current_password": "ann-password"])
        #expect(page.status == .ok)
        #expect(page.text.contains(#"<span class="scopes"><code>write</code> <code>deploy</code> </span>"#))
        #expect(page.text.contains("data-token=\"micro_"))
        let list = try await browser.get("/account/tokens").text
        #expect(list.contains(#"<strong>deployer</strong> <span class="scopes"><code>write</code> <code>deploy</code> </span><br>"#))
        // A script's form, answered in JSON: the order a token keeps, whatever the order sent.
        #expect(try await token(browser, ["export", "read"]).scopes == ["read", "export"])
        #expect(try await token(browser, ["deploy export", "write"]).scopes == ["write", "deploy", "export"])
        #expect(try await token(browser, ["read,write"]).scopes == ["write"], "write includes read")
        #expect(try await token(browser, ["deploy", "deploy"]).scopes == ["read", "deploy"], "every token reads")
        let plain = try await token(browser, [])
        #expect(plain.scopes == ["read"], "no scopes: read-only")
        #expect(plain.token?.hasPrefix("micro_") == true)
        // As kept: the list in JSON, from the table on SQLite.
        let listed = try await browser.get("/account/tokens", headers: Self.json).decode([ListedApiToken].self)
        let kept = Set(listed.map { $0.scopes.joined(separator: " ") })
        #expect(kept == ["read", "read deploy", "write", "write deploy export", "read export", "write deploy"])
        #expect(list.contains("(read-only)") == false)
        #expect(try await browser.get("/account/tokens").text.contains("(read-only)"))
        // The activity names each token with its scopes.
        let activity = try await browser.get("/account/activity", headers: Self.json).text
        #expect(activity.contains(#""detail":"deployer (write deploy)""#), "\(activity.prefix(400))")
        #expect(activity.contains(#""detail":"script (read)""#))
    }

    @Test func unknownManyOrHostileScopesAreRefusedAndTheFormComesBack() async throws {
        let fixture = try await makeFixture(extraScopes: 16)
        defer { Task { await fixture.close() } }
        let browser = try await signedIn(fixture.app)
        let refusals: [(sent: [String], message: String)] = [
            (["admin"], "There is no scope 'admin' here: choose among read, write, deploy, export, extra-0"),
            (["Deploy"], "There is no scope of that name here"),
            (["de%E2%80%AEploy"], "There is no scope of that name here"),
            (["deploy%00"], "There is no scope of that name here"),
            (["%C3%A9"], "There is no scope of that name here"),
            (["write", "x" + String(repeating: "y", count: 40)], "There is no scope of that name here"),
            (["deploy", "export"] + (0..<16).map { "extra-\($0)" }, "A token has at most 16 scopes."),
            (Array(repeating: "read", count: 100), "A token has at most 16 scopes."),
            ([String(repeating: "read ", count: 2000)], "A token has at most 16 scopes."),
        ]
        for (sent, message) in refusals {
            let refused = try await make(browser, sent)
            #expect(refused.status == .unprocessableEntity, "\(sent.prefix(3))")
            #expect(refused.text.contains(message), "\(sent.prefix(3)): \(refused.text.prefix(300))")
            #expect(!refused.text.contains("micro_"))
        }
        #expect(try await browser.get("/account/tokens", headers: Self.json).decode([ListedApiToken].self).isEmpty, "nothing made")
        // The page: the message by the scopes, and what was typed and chosen comes back.
        let page = try await browser.post(
            "/account/tokens", form: ["name": "kept", "scopes": "write", "scopes": "deploy", "scopes": "root", "current_password": "ann-password"])
        #expect(page.status == .unprocessableEntity)
        #expect(page.text.contains(#"<span class="field-error" id="scopes-error">There is no scope &#39;root&#39; here"#))
        #expect(page.text.contains(#"value="kept""#))
        #expect(page.text.contains(#"<input type="radio" name="scopes" value="write" checked>"#))
        #expect(page.text.contains(#"<input type="checkbox" name="scopes" value="deploy" checked>"#))
        #expect(page.text.contains(#"<input type="radio" name="scopes" value="read">"#))
        // Bytes that are no UTF-8 anywhere in the body: a 4xx, never a 500, and no token.
        let raw = try await browser.request(
            .POST, "/account/tokens", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Array("name=ok&current_password=ann-password&scopes=".utf8) + [0xFF, 0xC0, 0x80])
        #expect(raw.status.code >= 400 && raw.status.code < 500)
        #expect(try await browser.get("/account/tokens", headers: Self.json).decode([ListedApiToken].self).isEmpty)
    }

    @Test(arguments: DataStoreKind.allCases)
    func aReadOnlyTokenIsRefusedEveryWriteBeforeTheAppsCode(_ kind: DataStoreKind) async throws {
        let fixture = try await makeFixture(kind)
        defer { Task { await fixture.close() } }
        let browser = try await signedIn(fixture.app)
        let reader = try #require(try await token(browser, ["read"]).token)
        let writer = try #require(try await token(browser, ["write"]).token)
        let script = TestClient(fixture.app)
        script.sendsCsrfToken = false
        #expect(try await script.get("/things", headers: Self.bearer(reader)).text == #"{"user":"ann"}"#)
        #expect(try await script.head("/things", headers: Self.bearer(reader)).status == .ok)
        #expect(try await script.request(.OPTIONS, "/things", headers: Self.bearer(reader)).status == .ok)
        let ran = fixture.ran.value
        #expect(ran >= 6)
        for method in [HttpMethod.POST, .PUT, .PATCH, .DELETE, .RAW(value: "PROPFIND")] {
            let refused = try await script.request(method, "/things", headers: Self.bearer(reader), body: Array("a=b".utf8))
            #expect(refused.status == .forbidden, "\(method)")
            #expect(refused.text.contains("read-only") && refused.text.contains("'write'"), "\(method): \(refused.text)")
            #expect(refused.headers.first(name: "Content-Type")?.hasPrefix("application/json") == true)
            let challenge = refused.headers.first(name: "WWW-Authenticate") ?? ""
            #expect(challenge.contains(#"error="insufficient_scope""#) && challenge.contains(#"scope="write""#), "\(challenge)")
            #expect(refused.headers.first(name: "Set-Cookie") == nil)
        }
        #expect(fixture.ran.value == ran, "neither the filter nor the route ran")
        // A page for a client that asks for none (curl), and a route that does not exist is no
        // way around it; nor is revoking a token, which changes something too.
        let page = try await script.post("/things", form: [:], headers: Self.bearer(reader, json: false))
        #expect(page.status == .forbidden && page.headers.first(name: "Content-Type")?.hasPrefix("text/html") == true)
        #expect(page.text.contains("read-only"))
        #expect(try await script.post("/nowhere", form: [:], headers: Self.bearer(reader)).status == .forbidden)
        let id = try #require(try await browser.get("/account/tokens", headers: Self.json).decode([ListedApiToken].self).last?.id)
        #expect(try await script.post("/account/tokens/\(id)/revoke", form: [:], headers: Self.bearer(reader)).status == .forbidden)
        // A read-write token, a session and HTTP Basic write.
        for method in [HttpMethod.POST, .PUT, .PATCH, .DELETE] {
            #expect(try await script.request(method, "/things", headers: Self.bearer(writer), body: []).text == #"{"user":"ann"}"#, "\(method)")
        }
        #expect(try await browser.post("/things", form: [:]).status == .ok)
        let basic = "Basic " + Data("ann:ann-password".utf8).base64EncodedString()
        #expect(try await TestClient(fixture.app).post("/things", form: [:], headers: ["Accept": "application/json", "Authorization": basic]).status == .ok)
    }

    @Test func theAppsOwnScopesAreAskedByRoutesAndGroups() async throws {
        let fixture = try await makeFixture()
        defer { Task { await fixture.close() } }
        let browser = try await signedIn(fixture.app)
        let writer = try #require(try await token(browser, ["write"]).token)
        let deployer = try #require(try await token(browser, ["write", "deploy"]).token)
        let readingDeployer = try #require(try await token(browser, ["deploy"]).token)
        let exporter = try #require(try await token(browser, ["export"]).token)
        let script = TestClient(fixture.app)
        script.sendsCsrfToken = false
        let refused = try await script.post("/deploys", form: [:], headers: Self.bearer(writer))
        #expect(refused.status == .forbidden)
        #expect(refused.text.contains("lacks the scope 'deploy'"), "\(refused.text)")
        #expect(refused.headers.first(name: "WWW-Authenticate") == #"Bearer error="insufficient_scope", scope="deploy""#)
        #expect(try await script.post("/deploys", form: [:], headers: Self.bearer(deployer)).text == #"{"deployed by":"ann"}"#)
        // An app's scope does not make a token write: that takes `write`.
        #expect(try await script.post("/deploys", form: [:], headers: Self.bearer(readingDeployer)).text.contains("'write'"))
        // A group: every route of it.
        #expect(try await script.get("/exports", headers: Self.bearer(writer)).status == .forbidden)
        #expect(try await script.get("/exports", headers: Self.bearer(exporter)).text == #"{"exported for":"ann"}"#)
        // Scopes narrow tokens only: a session and HTTP Basic pass.
        #expect(try await browser.post("/deploys", form: [:]).status == .ok)
        #expect(try await browser.get("/exports").status == .ok)
        let basic: HttpHeaders = ["Accept": "application/json", "Authorization": "Basic " + Data("user:secret123".utf8).base64EncodedString()]
        #expect(try await TestClient(fixture.app).post("/deploys", form: [:], headers: basic).text == #"{"deployed by":"user"}"#)
        // Nobody: signed in first.
        #expect(try await TestClient(fixture.app).get("/exports").location == "/signin")
        #expect(try await TestClient(fixture.app).post("/deploys", form: [:], headers: Self.json).status == .unauthorized)
    }

    @Test func aScopeOutsideTheRuleStopsTheApp() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for bad in [[ApiTokenScope("Deploy", description: "x")], [ApiTokenScope("write", description: "x")],
            [ApiTokenScope("a", description: "x"), ApiTokenScope("a", description: "y")], [ApiTokenScope("ok", description: "")],
            (0...ApiTokenLimits.declaredScopes).map { ApiTokenScope("s\($0)", description: "x") }]
        {
            let app = isolatedApp { $0.views = nil }
            app.use(Authentication(users: try UserStoreKind.yaml.make(in: folder)))
            var accounts = Accounts()
            accounts.apiTokens.store = MemoryApiTokenStore()
            accounts.apiTokens.scopes = bad
            app.use(accounts)
            var problems = ""
            do { _ = try await TestClient(app).get("/") } catch let error as ConfigurationError { problems = error.message }
            #expect(problems.contains("scope"), "\(bad.map(\.name)): \(problems)")
        }
        let app = isolatedApp { $0.views = nil }
        app.group("/api") { $0.requireScope("Not A Name") }
        var problems = ""
        do { _ = try await TestClient(app).get("/") } catch let error as ConfigurationError { problems = error.message }
        #expect(problems.contains("'Not A Name' breaks the rule"), "\(problems)")
    }

    @Test func requestAuthenticationTellsHowTheRequestWasSignedIn() async throws {
        let fixture = try await makeFixture()
        defer { Task { await fixture.close() } }
        #expect(try await TestClient(fixture.app).get("/how").text == "none")
        let browser = try await signedIn(fixture.app)
        #expect(try await browser.get("/how").text == "session")
        let basic = "Basic " + Data("user:secret123".utf8).base64EncodedString()
        #expect(try await TestClient(fixture.app).get("/how", headers: ["Accept": "application/json", "Authorization": basic]).text == "basic")
        let made = try await token(browser, ["write", "deploy"])
        let how = try await TestClient(fixture.app).get("/how", headers: Self.bearer(try #require(made.token))).text
        #expect(how == "api-token \(made.id) [write deploy]")
    }

    @Test func theUsersPageShowsEachTokensScopes() async throws {
        let fixture = try await makeFixture(.sqlite)
        defer { Task { await fixture.close() } }
        let user = try await signedIn(fixture.app, "user", "secret123")
        _ = try await token(user, ["write", "export"], password: "secret123")
        let admin = try await signedIn(fixture.app)
        let page = try await admin.get("/admin/users").text
        #expect(page.contains(#"<th scope="col">Scopes</th>"#))
        #expect(page.contains(#"<td class="scopes"><code>write</code> <code>export</code> </td>"#), "\(page)")
        struct Listed: Decodable {
            let username: String
            let tokens: [ListedApiToken]
        }
        let listed = try await admin.get("/admin/users", headers: Self.json).decode([Listed].self)
        #expect(listed.first { $0.username == "user" }?.tokens.map(\.scopes) == [["write", "export"]])
    }

    /// A token made before tokens had scopes: the migration makes it read-write, as it was.
    @Test func aTokenFromBeforeScopesKeepsWriting() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("app.db")
        let old = try await Database.sqlite(path: path)
        try await old.migrate(Array(DatabaseApiTokenStore.migrations.prefix(1)))
        let secret = ApiTokenSecret.make()
        try await old.sql.insert(into: "micro_api_tokens")
            .columns("id", "digest", "username", "name", "created_at", "last_used_at", "expires_at", "revoked_at")
            .values(
                SQLBind("old-id"), SQLBind(ApiTokenSecret.digest(of: secret)), SQLBind("ann"), SQLBind("from before"),
                SQLBind(Int64(Date().timeIntervalSince1970)), SQLBind(Int64(0)), SQLBind(Int64(Date().timeIntervalSince1970) + 86_400),
                SQLBind(Int64(0))
            ).run()
        await old.shutdown()
        let database = try await Database.sqlite(path: path)
        defer { Task { await database.shutdown() } }
        let app = isolatedApp { $0.views = nil }
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: nil)
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        app.use(Accounts(database: database))
        app.post("/things") { request in ["by": request.authentication.description] }
        let script = TestClient(app)
        script.sendsCsrfToken = false
        let answer = try await script.post("/things", form: [:], headers: Self.bearer(secret))
        #expect(answer.text == #"{"by":"api-token old-id [write]"}"#)
        let row = try #require(try await database.sql.select().column("scopes").from("micro_api_tokens").first())
        #expect(try row.decode(column: "scopes", as: String.self) == "write")
    }
}
