import Foundation
@testable import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// A sign-in proxy's header: believed from the trusted proxies only, the request's identity
/// rather than the session's, and every odd header a 4xx.
@Suite struct ProxySignInTests {
    static let proxy = "10.0.0.5"

    private func makeApp(_ users: any UserStore, log: LogRecorder? = nil, configure: (inout ProxySignIn) -> Void = { _ in }) -> App {
        let app = isolatedApp(logger: log?.logger ?? .quietForTests) { $0.trustedProxies = [Self.proxy] }
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        var proxy = ProxySignIn()
        configure(&proxy)
        app.use(proxy)
        app.get("/page") { request in
            let user = try request.authenticate()
            return "page for \(user.username) [\(user.roles.joined(separator: ","))] \(request.flash["notice"] ?? "")"
        }
        app.get("/form") { request in request.csrfToken }
        app.post("/form") { request in
            let user = try request.authenticate()
            return "saved by \(user.username)"
        }
        app.get("/note") { request in
            request.flash["notice"] = "a note for \(request.currentUser?.username ?? "?")"
            return "noted"
        }
        return app
    }

    /// A browser behind the proxy, which names `user`.
    private func behindProxy(_ app: App) -> TestClient {
        let client = TestClient(app)
        client.remoteAddress = Self.proxy
        return client
    }

    @Test func theProxysUserIsSignedInOncePerSessionAndSeesTheirPage() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = makeApp(try UserStoreKind.yaml.make(in: folder))
        let client = behindProxy(app)
        let page = try await client.get("/page", headers: ["X-Forwarded-User": "Ann"])
        #expect(page.status == .ok)
        #expect(page.text.hasPrefix("page for ann"))
        // No cache keeps one person's page for another.
        #expect(page.headers.first(name: "Cache-Control")?.contains("no-store") == true)
        #expect(page.headers["Vary"].joined(separator: ",").contains("X-Forwarded-User"))
        let cookie = try #require(client.cookies["micro.session"]?.value)
        // The next request of the same person changes nothing: no new session.
        #expect(try await client.get("/page", headers: ["X-Forwarded-User": "ann"]).headers["Set-Cookie"].isEmpty)
        #expect(client.cookies["micro.session"]?.value == cookie)
        // Forms still need the CSRF token.
        client.sendsCsrfToken = false
        #expect(try await client.post("/form", form: [:], headers: ["X-Forwarded-User": "ann"]).status == .forbidden)
        client.sendsCsrfToken = true
        #expect(try await client.post("/form", form: [:], headers: ["X-Forwarded-User": "ann"]).text == "saved by ann")
    }

    @Test func anotherPersonOnTheSameBrowserNeverSeesThePreviousOnesFlashOrCsrfToken() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = makeApp(try UserStoreKind.yaml.make(in: folder))
        let client = behindProxy(app)
        _ = try await client.get("/note", headers: ["X-Forwarded-User": "ann"])
        let annToken = try await client.get("/form", headers: ["X-Forwarded-User": "ann"]).text
        // The proxy now names user (ann signed out at the company's sign-in, user signed in).
        let page = try await client.get("/page", headers: ["X-Forwarded-User": "user"])
        #expect(page.text.hasPrefix("page for user"))
        #expect(!page.text.contains("a note for ann"))
        let userToken = try await client.get("/form", headers: ["X-Forwarded-User": "user"]).text
        #expect(userToken != annToken)
        // Ann's token posted as user is refused.
        client.sendsCsrfToken = false
        let forged = try await client.post("/form", form: ["_csrf": annToken], headers: ["X-Forwarded-User": "user"])
        #expect(forged.status == .forbidden)
    }

    @Test func theHeaderFromAnyOtherAddressIsIgnoredAndLoggedAtMostOnceAMinute() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let log = LogRecorder()
        let app = makeApp(try UserStoreKind.yaml.make(in: folder), log: log)
        let stranger = TestClient(app)
        stranger.remoteAddress = "203.0.113.7"
        for _ in 0..<3 {
            let page = try await stranger.get("/page", headers: ["X-Forwarded-User": "ann"])
            #expect(page.status == .found)
            #expect(page.location == "/signin")
        }
        #expect(log.messages(at: .warning).filter { $0.contains("not the sign-in proxy's") }.count == 1)
        // X-Forwarded-For naming the proxy does not make the stranger one.
        let spoofed = try await stranger.get("/page", headers: ["X-Forwarded-User": "ann", "X-Forwarded-For": Self.proxy])
        #expect(spoofed.status == .found)
    }

    @Test(arguments: [
        ("nobody", HttpStatus.forbidden), ("ann\u{202E}", .forbidden), ("a\u{0301}nn", .forbidden), ("", .found), ("ann:x", .forbidden),
        (String(repeating: "a", count: 2000), .forbidden),
    ])
    func anOddNameIsRefusedNeverA500(_ sent: String, _ status: HttpStatus) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = behindProxy(makeApp(try UserStoreKind.yaml.make(in: folder)))
        let page = try await client.get("/page", headers: ["X-Forwarded-User": sent])
        #expect(page.status == status, "\(sent.prefix(20)): \(page.status) \(page.text.prefix(200))")
    }

    @Test func theHeaderSentTwiceIsA403() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = behindProxy(makeApp(try UserStoreKind.yaml.make(in: folder)))
        var headers: HttpHeaders = ["X-Forwarded-User": "ann"]
        headers.add(name: "X-Forwarded-User", value: "user")
        #expect(try await client.get("/page", headers: headers).status == .forbidden)
    }

    @Test func aSessionTheProxySignedInEndsWithoutItsWord() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = makeApp(try UserStoreKind.yaml.make(in: folder))
        let client = behindProxy(app)
        #expect(try await client.get("/page", headers: ["X-Forwarded-User": "ann"]).status == .ok)
        let cookie = try #require(client.cookies["micro.session"]?.value)
        // A path the proxy does not guard: its request carries no header, and the session stays.
        #expect(try await client.get("/page").status == .ok)
        // The cookie replayed straight to the app, past the proxy.
        let direct = TestClient(app)
        direct.remoteAddress = "203.0.113.7"
        #expect(try await direct.get("/page", headers: ["Cookie": "micro.session=\(cookie)"]).status == .found)
        #expect(try await client.get("/page").status == .found)
    }

    @Test func aRefusedPersonLeavesNobodySignedIn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = behindProxy(makeApp(try UserStoreKind.yaml.make(in: folder)))
        #expect(try await client.get("/note", headers: ["X-Forwarded-User": "ann"]).status == .ok)
        // The proxy now names someone who has no account here: refused, and ann is gone too.
        let refused = try await client.get("/page", headers: ["X-Forwarded-User": "zed"])
        #expect(refused.status == .forbidden)
        #expect(!refused.text.contains("ann"))
        #expect(try await client.get("/page").status == .found)
    }

    @Test func anyAdmitsOutsidersWithTheirGroupsAndExistingRefusesThem() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let users = try UserStoreKind.yaml.make(in: folder)
        let strict = behindProxy(makeApp(users))
        let refused = try await strict.get("/page", headers: ["X-Forwarded-User": "zed"])
        #expect(refused.status == .forbidden)
        #expect(refused.text.contains("no account here"))
        let open = behindProxy(makeApp(users) { $0.users = .any; $0.groupsHeader = "X-Forwarded-Groups" })
        let page = try await open.get("/page", headers: ["X-Forwarded-User": "Zed", "X-Forwarded-Groups": "Editors, ops,not a role!"])
        #expect(page.text.hasPrefix("page for zed [editors,ops]"))
        // New groups are a new identity: signed in again with them.
        let moved = try await open.get("/page", headers: ["X-Forwarded-User": "zed", "X-Forwarded-Groups": "viewers"])
        #expect(moved.text.hasPrefix("page for zed [viewers]"))
    }

    @Test func theDoorsOwnListNarrowsTheTrustedProxies() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let users = try UserStoreKind.yaml.make(in: folder)
        // A load balancer's forwarding headers are believed; only the sign-in proxy names people.
        let app = isolatedApp { $0.trustedProxies = [Self.proxy, "10.0.1.0/24"] }
        app.use(Authentication(users: users))
        var door = ProxySignIn()
        door.trustedAddresses = [Self.proxy]
        app.use(door)
        app.get("/page") { request in try request.authenticate().username }
        let balancer = TestClient(app)
        balancer.remoteAddress = "10.0.1.7"
        #expect(try await balancer.get("/page", headers: ["X-Forwarded-User": "ann"]).status == .found)
        // The balancer's X-Forwarded-For naming the door does not make it the door.
        #expect(try await balancer.get("/page", headers: ["X-Forwarded-User": "ann", "X-Forwarded-For": Self.proxy]).status == .found)
        #expect(try await behindProxy(app).get("/page", headers: ["X-Forwarded-User": "ann"]).text == "ann")
        // A door outside the trusted proxies would make everyone behind it one client: the app
        // does not start, and says why.
        let outside = isolatedApp { $0.trustedProxies = ["10.0.1.0/24"] }
        outside.use(Authentication(users: users))
        outside.use(door)
        do {
            _ = try await TestClient(outside).get("/")
            Issue.record("started with the door outside the trusted proxies")
        } catch let error as ConfigurationError {
            #expect(error.message.contains("has '10.0.0.5', which is not within settings.trustedProxies"), "\(error.message)")
        }
        door.trustedAddresses = ["10.0.0.5", "proxy.corp"]
        #expect(door.problem?.contains("'proxy.corp', which is not an IP address") == true)
        door.trustedAddresses = []
        #expect(door.problem?.contains("trustedAddresses is empty") == true)
    }

    @Test func signOutLeadsToTheProxysSignOut() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = behindProxy(makeApp(try UserStoreKind.yaml.make(in: folder)) { $0.signOutUrl = "/oauth2/sign_out" })
        #expect(try await client.get("/page", headers: ["X-Forwarded-User": "ann"]).status == .ok)
        let out = try await client.post("/signout", form: [:], headers: ["X-Forwarded-User": "ann"])
        #expect(out.status == .seeOther)
        #expect(out.location == "/oauth2/sign_out")
    }

    @Test func withoutTrustedProxiesTheAppDoesNotStart() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = isolatedApp()
        app.use(Authentication(users: try UserStoreKind.yaml.make(in: folder)))
        app.use(ProxySignIn())
        do {
            _ = try await TestClient(app).get("/page")
            Issue.record("started without trusted proxies")
        } catch let error as ConfigurationError {
            #expect(error.message.contains("settings.trustedProxies (MICRO_TRUSTED_PROXIES) is empty"), "\(error.message)")
        }
    }
}
