import Foundation
import Micro
import MicroOpenIdConnect
import MicroTesting
import Testing

/// The whole flow against the in-process provider: sign-in, the user mappings, the domains,
/// the roles, the state checks, the provider down, password sign-in off.
@Suite(.serialized) struct OpenIdConnectFlowTests {
    @Test func signsInAnExistingUserAndReturnsToTheRememberedPage() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let client = TestClient(ssoApp(provider))
        let first = try await client.get("/protected")
        #expect(first.status == .found)
        let start = try await client.post("/auth/oidc", form: [:])
        #expect(start.status == .seeOther)
        let location = try #require(start.location)
        #expect(location.hasPrefix(provider.issuer + "/authorize?"))
        let query = try #require(URLComponents(string: location)?.queryItems)
        #expect(query.contains(URLQueryItem(name: "redirect_uri", value: "http://localhost/auth/oidc/callback")))
        #expect(query.contains(URLQueryItem(name: "code_challenge_method", value: "S256")))
        let callback = try await client.get(try provider.approve(location))
        #expect(callback.status == .seeOther)
        #expect(callback.location == "/protected")
        let page = try await client.get("/protected")
        #expect(page.status == .ok)
        #expect(page.text == "Hello ann [] Welcome back Ann.")
        // The secret went as client_secret_basic, with the PKCE verifier.
        let sent = provider.state.withLock { $0.tokenRequests.last }
        #expect(sent?["code_verifier"]?.count == 43)
        #expect(sent?["client_secret"] == nil)
        // Signed out as any session: the next page asks to sign in again.
        _ = try await client.signOut()
        #expect(try await client.get("/protected").status == .found)
    }

    @Test func existingModeRefusesSomeoneNotInTheStore() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        provider.state.withLock { $0.claims["preferred_username"] = .string("Zed"); $0.claims["sub"] = .string("sub-zed") }
        let client = TestClient(ssoApp(provider))
        let callback = try await signInThroughProvider(client, provider)
        #expect(callback.status == .forbidden)
        #expect(callback.text.contains("matches no user here"))
        #expect(!callback.text.contains("&#39;zed&#39;") && !callback.text.contains("'zed'"))
        #expect(try await client.get("/protected").status == .found)
    }

    @Test func aLinkIsFollowedAndAStoreUserLinkedToAnotherSubjectIsRefused() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let app = ssoApp(provider)
        let client = TestClient(app)
        #expect(try await signInThroughProvider(client, provider).status == .seeOther)
        // The same subject, renamed at the provider: still ann, by the link.
        provider.state.withLock { $0.claims["preferred_username"] = .string("cy") }
        let renamed = TestClient(app)
        #expect(try await signInThroughProvider(renamed, provider).status == .seeOther)
        #expect(try await renamed.get("/protected").text.hasPrefix("Hello ann []"))
        // Another subject who calls itself ann: ann is linked to sub-ann.
        provider.state.withLock { $0.claims["preferred_username"] = .string("ann"); $0.claims["sub"] = .string("sub-mallory") }
        let impostor = TestClient(app)
        let refused = try await signInThroughProvider(impostor, provider)
        #expect(refused.status == .forbidden)
        // The same words as for a stranger: the page does not tell that ann is a user here.
        #expect(refused.text.contains("matches no user here"))
        #expect(!refused.text.contains("&#39;ann&#39;") && !refused.text.contains("'ann'"))
        #expect(try await impostor.get("/protected").status == .found)
    }

    @Test func linkingByEmailNeverReadsTheUsernameAPersonMayEdit() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let users = TestUsers([User(username: "admin", roles: ["admin"]), User(username: "kate@example.com")])
        let app = ssoApp(provider, users: users, configure: { $0.linkBy = .email })
        // Someone who renamed themselves admin at the provider, with an address of their own.
        provider.state.withLock {
            $0.claims["preferred_username"] = .string("admin")
            $0.claims["email"] = .string("mallory@example.com")
            $0.claims["sub"] = .string("sub-mallory")
        }
        let mallory = TestClient(app)
        #expect(try await signInThroughProvider(mallory, provider).status == .forbidden)
        #expect(try await mallory.get("/protected").status == .found)
        // Kate's verified address names her, whatever username she chose there.
        provider.state.withLock {
            $0.claims["preferred_username"] = .string("admin")
            $0.claims["email"] = .string("Kate@example.com")
            $0.claims["sub"] = .string("sub-kate")
        }
        let kate = TestClient(app)
        #expect(try await signInThroughProvider(kate, provider).status == .seeOther)
        #expect(try await kate.get("/protected").text.hasPrefix("Hello kate@example.com []"))
        // An address the provider has not verified names nobody.
        provider.state.withLock {
            $0.claims["email"] = .string("admin")
            $0.claims["email_verified"] = .bool(false)
            $0.claims["sub"] = .string("sub-other")
        }
        #expect(try await signInThroughProvider(TestClient(app), provider).status == .forbidden)
    }

    @Test func anEmailMatchesOnlyWhenVerified() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        provider.state.withLock {
            $0.claims["preferred_username"] = nil
            $0.claims["email"] = .string("CY@example.com")
            $0.claims["email_verified"] = .bool(false)
            $0.claims["sub"] = .string("sub-cy")
        }
        let app = ssoApp(provider)
        #expect(try await signInThroughProvider(TestClient(app), provider).status == .forbidden)
        // Verified, yet no address: it names nobody, not the user cy.
        provider.state.withLock { $0.claims["email"] = .string("cy"); $0.claims["email_verified"] = .string("true") }
        #expect(try await signInThroughProvider(TestClient(app), provider).status == .forbidden)
        provider.state.withLock { $0.claims["email"] = .string("cy@example.com"); $0.claims["email_verified"] = .string("true") }
        let client = TestClient(ssoApp(provider, users: TestUsers([User(username: "cy@example.com", roles: ["admin"])])))
        #expect(try await signInThroughProvider(client, provider).status == .seeOther)
        #expect(try await client.get("/protected").text.hasPrefix("Hello cy@example.com [admin]"))
    }

    @Test func anyModeSignsInSomeoneOutsideTheStoreWithRolesFromGroups() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        provider.state.withLock {
            $0.claims["preferred_username"] = .string("Dee")
            $0.claims["sub"] = .string("sub-dee")
            $0.claims["email"] = .string("dee@corp.example")
            $0.claims["groups"] = .strings(["Editors", "admin", "not a role!"])
        }
        let client = TestClient(ssoApp(provider, configure: { $0.users = .any; $0.allowedDomains = ["corp.example"] }))
        let callback = try await signInThroughProvider(client, provider)
        #expect(callback.status == .seeOther)
        #expect(callback.location == "/")
        // The session stands on the next requests (no row in the store).
        #expect(try await client.get("/protected").text == "Hello dee [admin,editors] Welcome back Ann Example.")
        #expect(try await client.get("/protected").text.hasPrefix("Hello dee [admin,editors]"))
    }

    @Test func anyModeKeepsAnOutsideNameForItsFirstSubject() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        provider.state.withLock { $0.claims["preferred_username"] = .string("dee"); $0.claims["sub"] = .string("sub-dee") }
        let app = ssoApp(provider, configure: { $0.users = .any })
        #expect(try await signInThroughProvider(TestClient(app), provider).status == .seeOther)
        // Renamed at the provider: still dee, by the link.
        provider.state.withLock { $0.claims["preferred_username"] = .string("dee2") }
        let renamed = TestClient(app)
        #expect(try await signInThroughProvider(renamed, provider).status == .seeOther)
        #expect(try await renamed.get("/protected").text.hasPrefix("Hello dee "))
        // Another subject calling itself dee is not taken for her.
        provider.state.withLock { $0.claims["preferred_username"] = .string("dee"); $0.claims["sub"] = .string("sub-other") }
        let other = try await signInThroughProvider(TestClient(app), provider)
        #expect(other.status == .forbidden)
        #expect(other.text.contains("already used here by another account"))
        #expect(!other.text.contains("&#39;dee&#39;") && !other.text.contains("'dee'"))
    }

    @Test func allowedDomainsRefuseOtherDomainsAndUnverifiedAddresses() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let app = ssoApp(provider, configure: { $0.users = .any; $0.allowedDomains = ["corp.example"] })
        let outside = try await signInThroughProvider(TestClient(app), provider)
        #expect(outside.status == .forbidden)
        #expect(outside.text.contains("ann@example.com is not in a domain allowed here"))
        provider.state.withLock { $0.claims["email"] = .string("ann@corp.example"); $0.claims["email_verified"] = .bool(false) }
        let unverified = try await signInThroughProvider(TestClient(app), provider)
        #expect(unverified.status == .forbidden)
        #expect(unverified.text.contains("has not verified"))
    }

    @Test func removingTheStoreUserEndsTheSession() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let users = TestUsers([User(username: "ann")])
        let client = TestClient(ssoApp(provider, users: users))
        #expect(try await signInThroughProvider(client, provider).status == .seeOther)
        #expect(try await client.get("/protected").status == .ok)
        users.remove("ann")
        #expect(try await client.get("/protected").status == .found)
    }

    @Test func aRemovedUsersLinkIsDroppedSoANewUserOfThatNameDoesNotInheritIt() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let users = TestUsers([User(username: "ann")])
        let links = MemoryIdentityLinkStore()
        let app = ssoApp(provider, users: users, configure: { $0.links = links })
        #expect(try await signInThroughProvider(TestClient(app), provider).status == .seeOther)
        #expect(try await links.username(linkedTo: ExternalIdentity(issuer: provider.issuer, subject: "sub-ann")) == "ann")
        // Ann leaves; her provider account, renamed there, signs in again: refused, link gone.
        users.remove("ann")
        provider.state.withLock { $0.claims["preferred_username"] = .string("ann.old") }
        #expect(try await signInThroughProvider(TestClient(app), provider).status == .forbidden)
        #expect(try await links.username(linkedTo: ExternalIdentity(issuer: provider.issuer, subject: "sub-ann")) == nil)
        // A new ann, another person at the provider: she links, and the old account does not get in.
        users.add(User(username: "ann"))
        provider.state.withLock { $0.claims["preferred_username"] = .string("ann"); $0.claims["sub"] = .string("sub-new-ann") }
        let newcomer = TestClient(app)
        #expect(try await signInThroughProvider(newcomer, provider).status == .seeOther)
        #expect(try await newcomer.get("/protected").text.hasPrefix("Hello ann "))
        provider.state.withLock { $0.claims["preferred_username"] = .string("ann.old"); $0.claims["sub"] = .string("sub-ann") }
        #expect(try await signInThroughProvider(TestClient(app), provider).status == .forbidden)
    }

    @Test func theStateMustBeThisSessionsAndUsedOnce() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let app = ssoApp(provider)
        let client = TestClient(app)
        let start = try await client.post("/auth/oidc", form: [:])
        let callback = try provider.approve(try #require(start.location))
        let code = try #require(URLComponents(string: callback)?.queryItems?.first { $0.name == "code" }?.value)
        #expect(try await client.get("/auth/oidc/callback?code=\(code)").status == .badRequest)
        #expect(try await client.get("/auth/oidc/callback?code=\(code)&state=forged").status == .badRequest)
        // Another browser cannot complete this one's flow.
        #expect(try await TestClient(app).get(callback).status == .badRequest)
        #expect(try await client.get(callback).status == .seeOther)
        #expect(try await client.get(callback).status == .badRequest)
    }

    @Test func pendingFlowsAreBoundedPerSession() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let client = TestClient(ssoApp(provider))
        var locations: [String] = []
        for _ in 0..<5 { locations.append(try #require(try await client.post("/auth/oidc", form: [:]).location)) }
        #expect(try await client.get(try provider.approve(locations[0])).status == .badRequest)
        #expect(try await client.get(try provider.approve(locations[4])).status == .seeOther)
    }

    @Test func aFlowExpiresAfterItsLifetime() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let clock = MovableClock()
        let client = TestClient(ssoApp(provider, clock: clock.now))
        let location = try #require(try await client.post("/auth/oidc", form: [:]).location)
        clock.advance(601)
        #expect(try await client.get(try provider.approve(location)).status == .badRequest)
    }

    @Test func theProvidersRefusalGoesBackToTheSignInPage() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let client = TestClient(ssoApp(provider))
        let location = try #require(try await client.post("/auth/oidc", form: [:]).location)
        let state = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "state" }?.value)
        let back = try await client.get("/auth/oidc/callback?error=access_denied&state=\(state)")
        #expect(back.status == .found)
        #expect(back.location == "/signin")
        let page = try await client.get("/signin")
        #expect(page.text.contains("Single sign-on was refused by Test IdP"))
        #expect(try await client.get("/protected").status == .found)
    }

    @Test func onlyPostStartsAFlow() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let client = TestClient(ssoApp(provider))
        let page = try await client.get("/auth/oidc")
        #expect(page.status == .ok)
        #expect(page.text.contains("<form method=\"post\" action=\"/auth/oidc\">"))
        client.sendsCsrfToken = false
        #expect(try await client.post("/auth/oidc", form: [:]).status == .forbidden)
    }

    @Test func theProviderDownIsA503WithRetryAfterAndDiscoveryIsRetried() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        provider.state.withLock { $0.down = true }
        let client = TestClient(ssoApp(provider))
        let down = try await client.post("/auth/oidc", form: [:])
        #expect(down.status == .serviceUnavailable)
        #expect(down.headers.first(name: "Retry-After") == "30")
        provider.state.withLock { $0.down = false }
        let start = try await client.post("/auth/oidc", form: [:])
        #expect(start.status == .seeOther)
        // Down again at the token endpoint: a 503, nobody signed in.
        provider.state.withLock { $0.down = true }
        let callback = try await client.get(try provider.approve(try #require(start.location)))
        #expect(callback.status == .serviceUnavailable)
        #expect(callback.headers.first(name: "Retry-After") != nil)
    }

    @Test func anUnreachableProviderIsA503() async throws {
        let provider = try await HostileProvider.start()
        await provider.stop()
        let client = TestClient(ssoApp(provider))
        let clock = ContinuousClock.now
        let answer = try await client.post("/auth/oidc", form: [:])
        #expect(answer.status == .serviceUnavailable)
        // Refused at once, not retried with backoff until the connect timeout (3 s).
        #expect(ContinuousClock.now - clock < .seconds(3))
    }

    @Test func clientSecretPostWhenDiscoveryListsOnlyThat() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        provider.state.withLock { $0.authMethods = ["client_secret_post"] }
        let client = TestClient(ssoApp(provider))
        #expect(try await signInThroughProvider(client, provider).status == .seeOther)
        #expect(provider.state.withLock { $0.tokenRequests.last?["client_secret"] } == HostileProvider.clientSecret)
    }

    @Test func passwordSignInOffLeavesOnlyTheButton() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let client = TestClient(ssoApp(provider, passwords: false))
        let page = try await client.get("/signin")
        #expect(page.text.contains("Sign in with Test IdP"))
        #expect(!page.text.contains("type=\"password\""))
        #expect(try await client.post("/signin", form: ["username": "ann", "password": "whatever"]).status == .forbidden)
        let basic = try await client.get("/protected", headers: ["Accept": "application/json", "Authorization": "Basic YW5uOnNlY3JldDEyMw=="])
        #expect(basic.status == .unauthorized)
        #expect(try await signInThroughProvider(client, provider).status == .seeOther)
    }

    @Test func theSignInPageShowsBothWays() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let page = try await TestClient(ssoApp(provider)).get("/signin")
        #expect(page.text.contains("<form method=\"post\" action=\"/auth/oidc\">"))
        #expect(page.text.contains("name=\"_csrf\""))
        #expect(page.text.contains("type=\"password\""))
        // Browsers check form-action on the button's redirect to the provider.
        let origin = try #require(provider.issuer.range(of: "^http://[^/]+", options: .regularExpression).map { String(provider.issuer[$0]) })
        #expect(page.headers.first(name: "Content-Security-Policy")?.contains("form-action 'self' \(origin);") == true)
    }

    @Test func logoutGoesOnToTheProvider() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let client = TestClient(ssoApp(provider, configure: { $0.logout = true }))
        #expect(try await signInThroughProvider(client, provider).status == .seeOther)
        let out = try await client.signOut()
        #expect(out.status == .seeOther)
        // The ID token names the session to end, the client id beside it.
        let location = try #require(out.location)
        #expect(location.hasPrefix(provider.issuer + "/logout?id_token_hint=ey"))
        #expect(location.hasSuffix("&client_id=micro-tests&post_logout_redirect_uri=http%3A%2F%2Flocalhost%2F"))
    }

    @Test func anIssuerThatIsNotHttpsStopsStartUp() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let app = ssoApp(provider, configure: { $0.issuer = "http://login.example.com" })
        await #expect(throws: (any Error).self) { try await TestClient(app).get("/") }
    }
}
