import Foundation
import Micro
import MicroOpenIdConnect
import MicroTesting
import Testing

/// A first single sign-on that names a store user with a password signs nobody in: the
/// person proves that user on the next page, and only then is the identity linked.
@Suite(.serialized) struct IdentityLinkProofTests {
    static let annsPassword = "correct horse battery"

    /// The store of the tests: ann with a password, cy without one (single sign-on only).
    func users() throws -> TestUsers {
        let users = TestUsers([User(username: "cy", roles: ["admin"])])
        try users.addWithPassword(User(username: "ann"), Self.annsPassword)
        return users
    }

    @Test func aUserWithAPasswordIsLinkedOnlyOnceTheyProveIt() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let links = MemoryIdentityLinkStore()
        let activity = MemoryActivityLog()
        let app = ssoApp(provider, users: try users(), activity: activity, configure: { $0.links = links })
        let client = TestClient(app)
        _ = try await client.get("/protected")
        let page = try await waitForProof(client, provider)
        #expect(page.status == .ok)
        #expect(page.text.contains("Password of ann"))
        #expect(page.text.contains("name=\"_csrf\""))
        // The app has a second factor to offer: its field is there whoever the user is (ann has
        // none), and not required.
        #expect(page.text.contains(#"<input id="code" name="code" autocomplete="one-time-code" inputmode="numeric">"#))
        // Nobody is signed in, and nothing is linked, while the identity waits.
        #expect(try await client.get("/protected").status == .found)
        let identity = ExternalIdentity(issuer: provider.issuer, subject: "sub-ann")
        #expect(try await links.username(linkedTo: identity) == nil)
        // A wrong password: the form again, still nobody signed in, the user's failed sign-in.
        let wrong = try await client.post("/auth/oidc/link", form: ["password": "not it"])
        #expect(wrong.status == .unprocessableEntity)
        #expect(wrong.text.contains("That is not the password or the code of ann."))
        #expect(try await links.username(linkedTo: identity) == nil)
        #expect(try await activity.events(of: "ann", offset: 0, limit: 10).map(\.event).contains("sign_in_failed"))
        // Without the form's CSRF token, nothing happens.
        client.sendsCsrfToken = false
        #expect(try await client.post("/auth/oidc/link", form: ["password": Self.annsPassword]).status == .forbidden)
        client.sendsCsrfToken = true
        // The right one links and signs in, back to the page first asked for.
        let right = try await client.post("/auth/oidc/link", form: ["password": Self.annsPassword])
        #expect(right.status == .seeOther)
        #expect(right.location == "/protected")
        #expect(try await client.get("/protected").text == "Hello ann [] Welcome back Ann.")
        #expect(try await links.username(linkedTo: identity) == "ann")
        let linked = try #require(try await activity.events(of: "ann", offset: 0, limit: 10).first { $0.event == "identity_linked" })
        #expect(linked.detail == "issuer=\(provider.issuer) subject=sub-ann claim=preferred_username proven by password")
        // Taken once: the page has nothing to ask any more.
        #expect(try await client.get("/auth/oidc/link").status == .found)
        // Later single sign-ons follow the link, with no password asked.
        let later = TestClient(app)
        let callback = try await signInThroughProvider(later, provider)
        #expect(callback.status == .seeOther)
        #expect(callback.location == "/")
        #expect(try await later.get("/protected").text.hasPrefix("Hello ann []"))
    }

    @Test func aUserMadeForSingleSignOnOnlyIsLinkedByTheClaim() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        provider.state.withLock { $0.claims["preferred_username"] = .string("cy"); $0.claims["sub"] = .string("sub-cy") }
        let activity = MemoryActivityLog()
        let client = TestClient(ssoApp(provider, users: try users(), activity: activity))
        #expect(try await signInThroughProvider(client, provider).location == "/")
        #expect(try await client.get("/protected").text.hasPrefix("Hello cy [admin]"))
        let linked = try #require(try await activity.events(of: "cy", offset: 0, limit: 10).first { $0.event == "identity_linked" })
        #expect(linked.detail == "issuer=\(provider.issuer) subject=sub-cy claim=preferred_username")
        // No password verifies against a user who has none.
        let form = TestClient(ssoApp(provider, users: try users()))
        _ = try await form.post("/signin", form: ["username": "cy", "password": "*no-password"])
        #expect(try await form.get("/protected").status == .found)
    }

    @Test func theClaimRuleLinksByTheClaimAlone() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let client = TestClient(ssoApp(provider, users: try users(), configure: { $0.linkRule = .claim }))
        #expect(try await signInThroughProvider(client, provider).location == "/")
        #expect(try await client.get("/protected").text.hasPrefix("Hello ann []"))
    }

    @Test func theWaitEndsAfterItsLifetimeAndAfterTooManyWrongAnswers() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let clock = MovableClock()
        let links = MemoryIdentityLinkStore()
        let app = ssoApp(provider, users: try users(), clock: clock.now, configure: { $0.links = links })
        let late = TestClient(app)
        _ = try await waitForProof(late, provider)
        clock.advance(301)
        let expired = try await late.post("/auth/oidc/link", form: ["password": Self.annsPassword])
        #expect(expired.status == .seeOther)
        #expect(expired.location == "/signin")
        #expect(try await late.get("/protected").status == .found)
        let guesser = TestClient(app)
        _ = try await waitForProof(guesser, provider)
        for _ in 0..<4 { #expect(try await guesser.post("/auth/oidc/link", form: ["password": "guess"]).status == .unprocessableEntity) }
        #expect(try await guesser.post("/auth/oidc/link", form: ["password": "guess"]).location == "/signin")
        #expect(try await guesser.post("/auth/oidc/link", form: ["password": Self.annsPassword]).location == "/signin")
        #expect(try await guesser.get("/protected").status == .found)
        #expect(try await links.username(linkedTo: ExternalIdentity(issuer: provider.issuer, subject: "sub-ann")) == nil)
    }

    @Test func aPasswordChangedWhileTheIdentityWaitsEndsTheWait() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let users = try users()
        let client = TestClient(ssoApp(provider, users: users))
        _ = try await waitForProof(client, provider)
        try users.addWithPassword(User(username: "ann"), "a new password here")
        #expect(try await client.post("/auth/oidc/link", form: ["password": "a new password here"]).location == "/signin")
        #expect(try await client.get("/protected").status == .found)
    }

    @Test func aDisabledUserIsNeitherSignedInNorLinked() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        provider.state.withLock { $0.claims["preferred_username"] = .string("cy"); $0.claims["sub"] = .string("sub-cy") }
        let users = try users()
        users.disable("cy")
        let links = MemoryIdentityLinkStore()
        let log = LogRecorder()
        let client = TestClient(ssoApp(provider, users: users, log: log, configure: { $0.links = links }))
        let refused = try await signInThroughProvider(client, provider)
        #expect(refused.status == .forbidden)
        #expect(refused.text.contains("matches no user here"))
        #expect(try await links.username(linkedTo: ExternalIdentity(issuer: provider.issuer, subject: "sub-cy")) == nil)
        #expect(log.messages(at: .warning).contains { $0.contains("names cy, who is disabled") })
    }

    @Test func aRefusalForAUserLinkedToAnotherSubjectIsLoggedAsThat() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        provider.state.withLock { $0.claims["preferred_username"] = .string("cy"); $0.claims["sub"] = .string("sub-cy") }
        let log = LogRecorder()
        let app = ssoApp(provider, users: try users(), log: log)
        #expect(try await signInThroughProvider(TestClient(app), provider).status == .seeOther)
        provider.state.withLock { $0.claims["sub"] = .string("sub-mallory") }
        let refused = try await signInThroughProvider(TestClient(app), provider)
        #expect(refused.status == .forbidden)
        #expect(refused.text.contains("matches no user here"))
        #expect(!refused.text.contains("cy"))
        #expect(log.messages(at: .warning).contains { $0.contains("names cy, who is linked to another subject (sub-cy)") })
        #expect(log.messages(at: .info).contains { $0.contains("Signed in by single sign-on: cy (subject sub-cy at \(provider.issuer))") })
    }

    @Test func anEmailThatIsNoAddressNamesNobody() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        provider.state.withLock {
            $0.claims["preferred_username"] = nil
            $0.claims["email"] = .string("CY")
            $0.claims["sub"] = .string("sub-root")
        }
        let client = TestClient(ssoApp(provider, users: try users(), configure: { $0.linkBy = .email }))
        #expect(try await signInThroughProvider(client, provider).status == .forbidden)
        #expect(try await client.get("/protected").status == .found)
    }

    @Test func anUnusablePreferredUsernameIsARefusalNotAFallBackToTheEmail() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        provider.state.withLock {
            $0.claims["preferred_username"] = .string("a:b")
            $0.claims["email"] = .string("cy@example.com")
            $0.claims["sub"] = .string("sub-x")
        }
        let users = try users()
        users.add(User(username: "cy@example.com"))
        let client = TestClient(ssoApp(provider, users: users))
        let refused = try await signInThroughProvider(client, provider)
        #expect(refused.status == .forbidden)
        #expect(refused.text.contains("not one a user here can have"))
        #expect(try await client.get("/protected").status == .found)
    }

    @Test func aLongNameClaimIsCutSoTheSignInKeepsItsCookie() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        provider.state.withLock {
            $0.claims["preferred_username"] = .string("dee")
            $0.claims["sub"] = .string("sub-dee")
            $0.claims["name"] = .string(String(repeating: "é", count: 2000))
            $0.claims["groups"] = .strings((0..<500).map { "group-\($0)-" + String(repeating: "x", count: 50) })
        }
        let client = TestClient(ssoApp(provider, configure: { $0.users = .any }))
        #expect(try await signInThroughProvider(client, provider).status == .seeOther)
        let page = try await client.get("/protected")
        #expect(page.status == .ok)
        #expect(page.text.contains("Welcome back " + String(repeating: "é", count: 200) + "."))
    }

    @Test func theProvidersErrorReachesTheLogEscaped() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let log = LogRecorder()
        let client = TestClient(ssoApp(provider, log: log))
        let location = try #require(try await client.post("/auth/oidc", form: [:]).location)
        let state = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "state" }?.value)
        let forged = "x\r\n2026-01-01 signed_in user=root\u{1B}[2J"
        var query = URLComponents()
        query.queryItems = [
            URLQueryItem(name: "state", value: state), URLQueryItem(name: "error", value: "bad\r\nerror\u{1B}]0;"),
            URLQueryItem(name: "error_description", value: forged),
        ]
        let back = try await client.get("/auth/oidc/callback?" + (query.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B"))
        #expect(back.status == .found)
        let lines = log.messages(at: .notice).filter { $0.contains("refused by the provider") }
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        #expect(!line.contains("\r") && !line.contains("\n") && !line.contains("\u{1B}"))
        #expect(line.contains("error=bad\\r\\nerror\\u{1B}]0;"))
        #expect(line.contains("error_description=x\\r\\n2026-01-01 signed_in user=root\\u{1B}[2J"))
        #expect(!(try await client.get("/signin").text.contains("\u{1B}")))
    }

    @Test func claimsQuotedInARefusalReachTheLogEscaped() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        provider.state.withLock { $0.claims["email"] = .string("x@evil.example\r\nsigned_in user=root\u{1B}[2J") }
        let log = LogRecorder()
        let client = TestClient(ssoApp(provider, log: log, configure: { $0.allowedDomains = ["corp.example"] }))
        #expect(try await signInThroughProvider(client, provider).status == .forbidden)
        let line = try #require(log.messages(at: .warning).first { $0.hasPrefix("Single sign-on failed") })
        #expect(!line.contains("\r") && !line.contains("\n") && !line.contains("\u{1B}"))
        #expect(line.contains("evil.example\\r\\nsigned_in user=root\\u{1B}[2J"))
    }

    @Test func signingOutAtTheProviderSendsTheIdTokenHint() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let client = TestClient(ssoApp(provider, users: try users(), configure: { $0.logout = true }))
        _ = try await waitForProof(client, provider)
        #expect(try await client.post("/auth/oidc/link", form: ["password": Self.annsPassword]).status == .seeOther)
        let out = try await client.signOut()
        #expect(out.status == .seeOther)
        let location = try #require(out.location.flatMap { URLComponents(string: $0) })
        let items = Dictionary(uniqueKeysWithValues: (location.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        #expect(items["client_id"] == HostileProvider.clientId)
        let hint = try #require(items["id_token_hint"])
        #expect(hint.split(separator: ".").count == 3)
    }
}
