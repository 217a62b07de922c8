import Foundation
import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// A sign-in proxy's sessions on the account pages: one `signed_in` event per browser
/// session, with detail `proxy`.
@Suite struct ProxySessionTests {
    @Test func aProxySessionIsOneSignInEvent() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = isolatedApp { $0.trustedProxies = ["10.0.0.5"] }
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        var accounts = Accounts(features: [])
        let activity = MemoryActivityLog()
        accounts.activity = activity
        app.use(accounts)
        app.use(ProxySignIn())
        let client = TestClient(app)
        client.remoteAddress = "10.0.0.5"
        for _ in 0..<3 {
            #expect(try await client.get("/account/sessions", headers: ["X-Forwarded-User": "user"]).status == .ok)
        }
        let events = try await activity.events(of: "user", offset: 0, limit: 20).filter { $0.event == "signed_in" }
        #expect(events.count == 1)
        #expect(events.first?.detail == "proxy")
        // Another browser is another session, and another event, from its first page on.
        let other = TestClient(app)
        other.remoteAddress = "10.0.0.5"
        let page = try await other.get("/account/sessions", headers: ["X-Forwarded-User": "user", "User-Agent": "Firefox/140"])
        #expect(page.status == .ok)
        #expect(page.text.contains("Firefox"), "its first page lists its own session")
        #expect(try await activity.events(of: "user", offset: 0, limit: 20).filter { $0.event == "signed_in" }.count == 2)
    }

    /// With `any`, a store user the proxy names keeps the store's roles: the same path.
    @Test(arguments: [ProxyUsers.existing, .any])
    func aScriptThatKeepsNoCookieIsSignedInForEachRequestWithoutASessionOrAnEvent(_ whom: ProxyUsers) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = isolatedApp { $0.trustedProxies = ["10.0.0.5"] }
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        var accounts = Accounts(features: [])
        let activity = MemoryActivityLog()
        accounts.activity = activity
        let registry = MemorySessionRegistry()
        accounts.sessions = registry
        app.use(accounts)
        var door = ProxySignIn()
        door.users = whom
        app.use(door)
        app.get("/whoami") { request in try request.authenticate().username }
        func listed() async throws -> Int { try await registry.sessions(of: "user", now: Int64(Date().timeIntervalSince1970), idle: 3600, lifetime: 86400).count }
        func events() async throws -> Int { try await activity.events(of: "user", offset: 0, limit: 50).filter { $0.event == "signed_in" }.count }
        // Scripts through the proxy: no cookie kept, whatever headers they send (Node's fetch
        // sends Sec-Fetch-Mode; a stale cookie replayed for ever is no session either).
        let stale = "micro.session=" + String(repeating: "A", count: 120)
        for headers: HttpHeaders in [["Accept": "*/*"], ["Sec-Fetch-Mode": "cors"], ["Accept": "text/html"], ["Cookie": stale]] {
            let script = TestClient(app)
            script.remoteAddress = "10.0.0.5"
            var sent = headers
            sent.add(name: "X-Forwarded-User", value: "user")
            let answer = try await script.get("/whoami", headers: sent)
            #expect(answer.status == .ok)
            #expect(answer.text == "user")
        }
        // The first was recorded, as a browser's first request is; the others were not.
        #expect(try await events() == 1)
        #expect(try await listed() == 1)
        // A script that keeps its cookie is one session, recorded when the cookie comes back.
        let keeper = TestClient(app)
        keeper.remoteAddress = "10.0.0.5"
        for _ in 0..<3 { #expect(try await keeper.get("/whoami", headers: ["X-Forwarded-User": "user"]).text == "user") }
        #expect(try await events() == 2)
        #expect(try await listed() == 2)
        // Its cookie replayed past the proxy still opens nothing.
        let cookie = try #require(keeper.cookies["micro.session"]?.value)
        #expect(try await TestClient(app).get("/whoami", headers: ["Cookie": "micro.session=\(cookie)"]).status == .found)
    }

    @Test func aProxySignInIsNoProofForTheUsersPagesChanges() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = isolatedApp { $0.trustedProxies = ["10.0.0.5"] }
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: nil, roles: ["admin"])
        try users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        app.use(Accounts(features: []))
        app.use(ProxySignIn())
        let client = TestClient(app)
        client.remoteAddress = "10.0.0.5"
        #expect(try await client.get("/admin/users", headers: ["X-Forwarded-User": "ann"]).status == .ok)
        // The proxy signed ann in, unasked: a change still needs her password.
        let change = try await client.post("/admin/users/disable", form: ["username": "user"], headers: ["X-Forwarded-User": "ann"])
        #expect(change.status == .unprocessableEntity || change.status == .forbidden, "\(change.status) \(change.text.prefix(200))")
        #expect(try users.find(username: "user")?.isDisabled == false)
    }
}
