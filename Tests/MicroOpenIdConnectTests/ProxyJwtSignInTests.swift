import Foundation
import Logging
import Micro
import MicroOpenIdConnect
import MicroTestSupport
import MicroTesting
import Testing

/// A sign-in proxy's signed JWT: checked as an ID token is, from any address; a bad one is a
/// 401, the keys away a 503, and a flood of bogus keys fetches the key set at most once a minute.
@Suite(.serialized) struct ProxyJwtSignInTests {
    static let header = "Cf-Access-Jwt-Assertion"
    static let audience = "tools-aud-tag"

    private func makeApp(_ provider: HostileProvider, users: ProxyUsers = .existing) -> App {
        let app = isolatedApp()
        let store = TestUsers([User(username: "ann", roles: ["editor"]), User(username: "cy", roles: ["admin"])])
        var authentication = Authentication(users: store)
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        var door = ProxyJwtSignIn(header: Self.header, jwksUrl: provider.issuer + "/jwks", issuer: provider.issuer, audience: Self.audience)
        door.users = users
        door.groupsClaim = "groups"
        door.allowedDomains = ["Example.com"]
        door.timeout = .seconds(2)
        app.use(door)
        app.get("/page") { request in
            let user = try request.authenticate()
            return "page for \(user.username) [\(user.roles.joined(separator: ","))]"
        }
        return app
    }

    private func token(_ provider: HostileProvider, email: String = "ann@example.com", spoil: HostileProvider.Spoil = .none,
                       change: (inout [String: HostileProvider.ClaimValue]) -> Void = { _ in }) throws -> String {
        let now = Date().timeIntervalSince1970
        var claims: [String: HostileProvider.ClaimValue] = [
            "iss": .string(provider.issuer), "aud": .strings([Self.audience]), "iat": .number(now), "exp": .number(now + 300),
            "email": .string(email), "sub": .string("sub-\(email)"),
        ]
        change(&claims)
        return try provider.sign(claims, spoil: spoil)
    }

    @Test func aValidTokenSignsInTheLocalPartOfItsEmailFromAnyAddress() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let client = TestClient(makeApp(provider))
        client.remoteAddress = "198.51.100.4"
        let page = try await client.get("/page", headers: [Self.header: try token(provider)])
        #expect(page.status == .ok, "\(page.text)")
        #expect(page.text == "page for ann [editor]")
        #expect(page.headers["Vary"].contains { $0.contains(Self.header) })
        // Another person's token on the same browser: their page.
        #expect(try await client.get("/page", headers: [Self.header: try token(provider, email: "cy@example.com")]).text == "page for cy [admin]")
    }

    @Test(arguments: [
        HostileProvider.Spoil.wrongSignature, .algNone, .hs256WithPublicKey, .jkuHeader, .embeddedJwk, .wrongIssuer, .wrongAudience, .expired,
        .issuedInFuture,
    ])
    func aBadTokenIsA401AndSignsNobodyIn(_ spoil: HostileProvider.Spoil) async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let client = TestClient(makeApp(provider))
        let page = try await client.get("/page", headers: [Self.header: try token(provider, spoil: spoil) { claims in
            switch spoil {
            case .wrongIssuer: claims["iss"] = .string("http://127.0.0.1:1")
            case .wrongAudience: claims["aud"] = .string("someone-else")
            case .expired: claims["exp"] = .number(Date().timeIntervalSince1970 - 600)
            case .issuedInFuture: claims["iat"] = .number(Date().timeIntervalSince1970 + 600)
            default: break
            }
        }])
        #expect(page.status == .unauthorized, "\(spoil): \(page.status)")
    }

    @Test(arguments: ["not a jwt", "a.b.c", String(repeating: "x", count: 20_000), "\u{202E}.\u{0301}.x"])
    func aMalformedOrOversizedTokenIsA4xxNeverA500(_ sent: String) async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let page = try await TestClient(makeApp(provider)).get("/page", headers: [Self.header: sent])
        #expect((400..<500).contains(page.status.code), "\(page.status)")
    }

    @Test func anUnverifiedEmailOrAStrangerIsRefused() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let app = makeApp(provider)
        let unverified = try await TestClient(app).get("/page", headers: [Self.header: try token(provider) { $0["email_verified"] = .bool(false) }])
        #expect(unverified.status == .forbidden)
        let stranger = try await TestClient(app).get("/page", headers: [Self.header: try token(provider, email: "zed@example.com")])
        #expect(stranger.status == .forbidden)
        // ann at another domain is not ann.
        let elsewhere = try await TestClient(app).get("/page", headers: [Self.header: try token(provider, email: "ann@gmail.com")])
        #expect(elsewhere.status == .forbidden)
        let open = try await TestClient(makeApp(provider, users: .any)).get(
            "/page", headers: [Self.header: try token(provider, email: "zed@example.com") { $0["groups"] = .strings(["Ops"]) }])
        #expect(open.text == "page for zed [ops]")
    }

    @Test func bogusKeysFetchTheKeySetAtMostOnceAMinuteAndKeysAwayAreA503() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let app = makeApp(provider)
        #expect(try await TestClient(app).get("/page", headers: [Self.header: try token(provider)]).status == .ok)
        let fetched = provider.state.withLock { $0.jwksFetches }
        for _ in 0..<20 {
            let page = try await TestClient(app).get("/page", headers: [Self.header: try token(provider, spoil: .bogusKid)])
            #expect(page.status == .unauthorized)
        }
        #expect(provider.state.withLock { $0.jwksFetches } <= fetched + 1)
        // A fresh app whose keys are away: a flood of tokens costs the provider one fetch.
        provider.state.withLock { $0.down = true }
        let attempts = provider.state.withLock { $0.jwksAttempts }
        let fresh = makeApp(provider)
        let signed = try token(provider)
        let statuses = try await withThrowingTaskGroup(of: HttpStatus.self) { group in
            for _ in 0..<10 { group.addTask { try await TestClient(fresh).get("/page", headers: [Self.header: signed]).status } }
            return try await group.reduce(into: [HttpStatus]()) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 == .serviceUnavailable })
        #expect(provider.state.withLock { $0.jwksAttempts } == attempts + 1)
        let away = try await TestClient(fresh).get("/page", headers: [Self.header: signed])
        #expect(away.status == .serviceUnavailable)
        #expect(away.headers.first(name: "Retry-After") != nil)
    }
}
