import Foundation
import Micro
import MicroOpenIdConnect
import MicroTesting
import Testing

/// OpenID Connect Back-Channel Logout: the provider's server posts a signed logout token,
/// and the sessions it names end as a sign-out ends one; anything else is a `400` that ends
/// nothing.
@Suite(.serialized) struct BackChannelLogoutTests {
    static let event = "http://schemas.openid.net/event/backchannel-logout"

    /// A logout token's claims as the provider sends them, for `sid` and/or `sub`.
    static func claims(_ provider: HostileProvider, sid: String? = nil, sub: String? = nil, jti: String = UUID().uuidString)
        -> [String: HostileProvider.ClaimValue]
    {
        var claims: [String: HostileProvider.ClaimValue] = [
            "iss": .string(provider.issuer), "aud": .string(HostileProvider.clientId), "iat": .number(Date().timeIntervalSince1970),
            "jti": .string(jti), "events": .eventNames([event]),
        ]
        if let sid { claims["sid"] = .string(sid) }
        if let sub { claims["sub"] = .string(sub) }
        return claims
    }

    /// The provider's post, from its server: no cookie, no CSRF token.
    static func post(_ app: App, _ token: String) async throws -> TestResponse {
        let server = TestClient(app)
        server.sendsCsrfToken = false
        return try await server.post("/auth/oidc/backchannel-logout", form: ["logout_token": token])
    }

    /// A browser signed in by single sign-on in the provider's session `sid`.
    static func browser(_ app: App, _ provider: HostileProvider, sid: String) async throws -> TestClient {
        provider.state.withLock { $0.claims["sid"] = .string(sid) }
        let client = TestClient(app)
        let callback = try await signInThroughProvider(client, provider)
        try #require(callback.status == .seeOther, "the callback answered \(callback.status): \(callback.text)")
        try #require(try await client.get("/protected").status == .ok)
        return client
    }

    /// The session cookie as another machine would replay it.
    static func copied(_ client: TestClient) throws -> HttpHeaders {
        let cookie = try #require(client.cookies["micro.session"]?.value)
        return ["Cookie": "micro.session=\(cookie)"]
    }

    @Test func aSidEndsThatSessionEverywhereItsCookieGoesAndNoOther() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let activity = MemoryActivityLog()
        let app = ssoApp(provider, activity: activity)
        let laptop = try await Self.browser(app, provider, sid: "sid-laptop")
        let phone = try await Self.browser(app, provider, sid: "sid-phone")
        let replayed = try Self.copied(laptop)
        let answer = try await Self.post(app, try provider.sign(Self.claims(provider, sid: "sid-laptop")))
        #expect(answer.status == .ok, "\(answer.text)")
        #expect(answer.headers.first(name: "Cache-Control") == "no-store")
        #expect(try await laptop.get("/protected").status == .found)
        #expect(try await TestClient(app).get("/protected", headers: replayed).status == .found)
        #expect(try await phone.get("/protected").status == .ok)
        // The sessions page no longer lists the ended session.
        struct Listed: Decodable { var current: Bool }
        #expect(try await phone.get("/account/sessions", headers: ["Accept": "application/json"]).decode([Listed].self).map(\.current) == [true])
        let event = try #require(try await activity.events(of: "ann", offset: 0, limit: 20).first { $0.event == "signed_out" })
        #expect(event.detail.contains("back channel"))
        #expect(event.detail.contains("sid=sid-laptop"))
    }

    @Test func aSessionGivenANewIdentitySinceIsEndedAllTheSame() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let app = ssoApp(provider, activity: MemoryActivityLog())
        let laptop = try await Self.browser(app, provider, sid: "sid-laptop")
        // "Sign out everywhere else" re-keys this session.
        let before = try #require(laptop.cookies["micro.session"]?.value)
        #expect(try await laptop.post("/account/sessions/sign-out-others", form: [:]).status == .seeOther)
        #expect(laptop.cookies["micro.session"]?.value != before)
        let still = try await laptop.get("/protected")
        #expect(still.status == .ok, "\(still.status) \(still.location ?? "") \(still.text.prefix(300))")
        #expect(try await Self.post(app, try provider.sign(Self.claims(provider, sid: "sid-laptop"))).status == .ok)
        #expect(try await laptop.get("/protected").status == .found)
    }

    @Test func aSubAloneEndsEverySingleSignOnSessionOfThePersonButNotTheirPasswordSession() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let users = TestUsers([])
        try users.addWithPassword(User(username: "ann"), "correct horse battery")
        let app = ssoApp(provider, users: users, configure: { $0.linkRule = .claim })
        let one = try await Self.browser(app, provider, sid: "sid-1")
        let two = try await Self.browser(app, provider, sid: "sid-2")
        let password = TestClient(app)
        #expect(try await password.signIn("ann", "correct horse battery").status == .seeOther)
        let answer = try await Self.post(app, try provider.sign(Self.claims(provider, sub: "sub-ann")))
        #expect(answer.status == .ok, "\(answer.text)")
        #expect(try await one.get("/protected").status == .found)
        #expect(try await two.get("/protected").status == .found)
        #expect(try await password.get("/protected").status == .ok)
    }

    @Test func aSidOfAnotherPersonEndsNothing() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let app = ssoApp(provider)
        let laptop = try await Self.browser(app, provider, sid: "sid-laptop")
        // The sid is ann's, the sub someone else's: both must match.
        let answer = try await Self.post(app, try provider.sign(Self.claims(provider, sid: "sid-laptop", sub: "sub-mallory")))
        #expect(answer.status == .ok)
        #expect(try await laptop.get("/protected").status == .ok)
    }

    @Test func aLogoutTokenActsOnceAndItsReplayEndsNoLaterSession() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let app = ssoApp(provider)
        _ = try await Self.browser(app, provider, sid: "sid-1")
        let token = try provider.sign(Self.claims(provider, sub: "sub-ann", jti: "jti-once"))
        #expect(try await Self.post(app, token).status == .ok)
        let later = try await Self.browser(app, provider, sid: "sid-2")
        let replay = try await Self.post(app, token)
        #expect(replay.status == .badRequest)
        #expect(replay.text.contains("\"error\":\"invalid_request\""))
        #expect(try await later.get("/protected").status == .ok)
    }

    @Test func racingCopiesOfOneTokenActOnce() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let activity = MemoryActivityLog()
        let app = ssoApp(provider, activity: activity)
        _ = try await Self.browser(app, provider, sid: "sid-1")
        let token = try provider.sign(Self.claims(provider, sid: "sid-1"))
        let statuses = try await withThrowingTaskGroup(of: HttpStatus.self) { group in
            for _ in 0..<8 { group.addTask { try await Self.post(app, token).status } }
            return try await group.reduce(into: [HttpStatus]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == .ok }.count == 1)
        #expect(statuses.filter { $0 == .badRequest }.count == 7)
        #expect(try await activity.events(of: "ann", offset: 0, limit: 50).filter { $0.event == "signed_out" }.count == 1)
    }

    /// Every way a logout token can be wrong, as section 2.6 lists them: a `400` with
    /// `invalid_request`, and the session goes on.
    @Test(arguments: [
        "no token", "two tokens", "not a JWT", "alg none", "HS256 with the public key", "another key", "jku header", "wrong issuer",
        "wrong audience", "issued too long ago", "issued in the future", "expired", "no jti", "no events", "another event",
        "a nonce", "neither sid nor sub", "an empty sid", "a sid too long", "a jti too long", "an ID token", "oversized", "invalid UTF-8",
    ])
    func aWrongLogoutTokenIsABadRequestAndEndsNothing(_ wrong: String) async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let app = ssoApp(provider)
        let laptop = try await Self.browser(app, provider, sid: "sid-laptop")
        var claims = Self.claims(provider, sid: "sid-laptop", sub: "sub-ann")
        let now = Date().timeIntervalSince1970
        var spoil = HostileProvider.Spoil.none
        switch wrong {
        case "alg none": spoil = .algNone
        case "HS256 with the public key": spoil = .hs256WithPublicKey
        case "another key": spoil = .wrongSignature
        case "jku header": spoil = .jkuHeader
        case "wrong issuer": claims["iss"] = .string("http://127.0.0.1:1")
        case "wrong audience": claims["aud"] = .string("someone-else")
        case "issued too long ago": claims["iat"] = .number(now - 600)
        case "issued in the future": claims["iat"] = .number(now + 600)
        case "expired": claims["exp"] = .number(now - 600)
        case "no jti": claims["jti"] = nil
        case "no events": claims["events"] = nil
        case "another event": claims["events"] = .eventNames(["http://schemas.openid.net/event/something-else"])
        case "a nonce": claims["nonce"] = .string("n")
        case "neither sid nor sub": claims["sid"] = nil; claims["sub"] = nil
        case "an empty sid": claims["sid"] = .string("")
        case "a sid too long": claims["sid"] = .string(String(repeating: "s", count: 256))
        case "a jti too long": claims["jti"] = .string(String(repeating: "j", count: 256))
        case "an ID token":
            claims["events"] = nil
            claims["nonce"] = .string("n")
            claims["exp"] = .number(now + 300)
        default: break
        }
        let server = TestClient(app)
        server.sendsCsrfToken = false
        let answer: TestResponse
        switch wrong {
        case "no token": answer = try await server.post("/auth/oidc/backchannel-logout", form: ["other": "x"])
        case "two tokens":
            let token = try provider.sign(claims)
            answer = try await server.post("/auth/oidc/backchannel-logout", form: ["logout_token": token, "logout_token": token])
        case "not a JWT": answer = try await server.post("/auth/oidc/backchannel-logout", form: ["logout_token": "a.b.c"])
        case "oversized":
            answer = try await server.post("/auth/oidc/backchannel-logout", form: ["logout_token": String(repeating: "A", count: 70_000) + ".b.c"])
        case "invalid UTF-8":
            answer = try await server.request(
                .POST, "/auth/oidc/backchannel-logout", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Array("logout_token=%FF%FE.%C0%AF.x".utf8))
        default: answer = try await server.post("/auth/oidc/backchannel-logout", form: ["logout_token": try provider.sign(claims, spoil: spoil)])
        }
        #expect(answer.status.code >= 400 && answer.status.code < 500, "\(wrong): \(answer.status) \(answer.text)")
        // Invalid UTF-8 in a form is refused by Micro's form reading, before the route.
        if wrong != "invalid UTF-8" {
            #expect(answer.status == .badRequest, "\(wrong): \(answer.status)")
            #expect(answer.text.contains("\"error\":\"invalid_request\""), "\(wrong): \(answer.text)")
        }
        #expect(try await laptop.get("/protected").status == .ok, "\(wrong) ended the session")
    }

    @Test func aBurstOfBadTokensFromOneAddressIsThrottledAsFailedSignInsAre() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let activity = MemoryActivityLog()
        let app = ssoApp(provider, activity: activity)
        let laptop = try await Self.browser(app, provider, sid: "sid-laptop")
        let attacker = TestClient(app)
        attacker.sendsCsrfToken = false
        attacker.remoteAddress = "203.0.113.9"
        var statuses: [HttpStatus] = []
        for _ in 0..<25 {
            statuses.append(try await attacker.post("/auth/oidc/backchannel-logout", form: ["logout_token": "a.b.c"]).status)
        }
        #expect(statuses.prefix(20).allSatisfy { $0 == .badRequest })
        let throttled = try await attacker.post("/auth/oidc/backchannel-logout", form: ["logout_token": "a.b.c"])
        #expect(throttled.status == .tooManyRequests)
        #expect(throttled.headers.first(name: "Retry-After") != nil)
        // Bad tokens are no one's failed sign-in.
        #expect(try await activity.events(of: nil, offset: 0, limit: 50).contains { $0.event == "sign_in_failed" } == false)
        // A token that verifies is heard even from that address (a provider behind an address
        // its users share).
        let valid = try await attacker.post("/auth/oidc/backchannel-logout", form: ["logout_token": try provider.sign(Self.claims(provider, sid: "sid-laptop"))])
        #expect(valid.status == .ok)
        #expect(try await laptop.get("/protected").status == .found)
    }

    @Test func theProviderDownIsA503AndEndsNothing() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let app = ssoApp(provider)
        let laptop = try await Self.browser(app, provider, sid: "sid-laptop")
        // A token signed by a key the app has not seen: the key set must be fetched again, and
        // the provider does not answer.
        provider.state.withLock { $0.rotated = true; $0.down = true }
        let answer = try await Self.post(app, try provider.sign(Self.claims(provider, sid: "sid-laptop")))
        #expect(answer.status == .serviceUnavailable, "\(answer.status) \(answer.text)")
        #expect(answer.headers.first(name: "Retry-After") != nil)
        #expect(try await laptop.get("/protected").status == .ok)
    }

    @Test func aSessionBegunAfterProvingThePasswordIsEndedByItsSid() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let users = TestUsers([])
        try users.addWithPassword(User(username: "ann"), "correct horse battery")
        let app = ssoApp(provider, users: users)
        provider.state.withLock { $0.claims["sid"] = .string("sid-proof") }
        let client = TestClient(app)
        let form = try await waitForProof(client, provider)
        #expect(form.status == .ok)
        let proven = try await client.post("/auth/oidc/link", form: ["password": "correct horse battery"])
        #expect(proven.status == .seeOther, "\(proven.text)")
        #expect(try await client.get("/protected").status == .ok)
        #expect(try await Self.post(app, try provider.sign(Self.claims(provider, sid: "sid-proof"))).status == .ok)
        #expect(try await client.get("/protected").status == .found)
    }
}
