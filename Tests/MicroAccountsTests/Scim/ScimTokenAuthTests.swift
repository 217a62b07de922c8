import Foundation
import Micro
@testable import MicroAccounts
import MicroTestSupport
import MicroTesting
import Testing

/// Who opens `/scim/v2`: a SCIM token, and nothing else; and a SCIM token opens nothing else.
@Suite struct ScimTokenAuthTests {
    @Test func noTokenABadOneAndARevokedOneAre401AsScimErrors() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let none = try await fixture.client().request(.GET, "/scim/v2/Users", headers: ["Accept": "application/scim+json"])
        #expect(none.status == .unauthorized)
        #expect(try ScimFixture.error(none).status == "401")
        #expect(none.headers.first(name: "WWW-Authenticate")?.hasPrefix("Bearer") == true)
        let wrong = try await fixture.send(.GET, "/scim/v2/Users", bearer: ScimToken.prefix + String(repeating: "A", count: 43))
        #expect(wrong.status == .unauthorized)
        #expect(try await fixture.send(.GET, "/scim/v2/Users", bearer: "nonsense").status == .unauthorized)
        #expect(try await fixture.send(.GET, "/scim/v2/Users").status == .ok)
        #expect(try await DatabaseScimStore(fixture.database).revokeAll() == 1)
        #expect(try await fixture.send(.GET, "/scim/v2/Users").status == .unauthorized)
    }

    @Test func aUsersApiTokenDoesNotOpenScimAndAScimTokenOpensNothingElse() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let browser = TestClient(fixture.app)
        try await browser.signIn("ann", "ann-password")
        let made = try await browser.post("/account/tokens", form: ["name": "deploy", "current_password": "ann-password"])
        let range = try #require(made.text.range(of: #"data-token="micro_[A-Za-z0-9_-]+""#, options: .regularExpression))
        let apiToken = String(made.text[range].dropFirst("data-token=\"".count).dropLast())
        let script = TestClient(fixture.app)
        #expect(try await script.get("/me", headers: ["Accept": "application/json", "Authorization": "Bearer " + apiToken]).status == .ok)
        let refused = try await fixture.send(.GET, "/scim/v2/Users", bearer: apiToken)
        #expect(refused.status == .unauthorized)
        #expect(try ScimFixture.error(refused).status == "401")
        // The SCIM token outside /scim/v2: no user.
        let outside = try await script.get("/me", headers: ["Accept": "application/json", "Authorization": "Bearer " + fixture.token])
        #expect(outside.status == .unauthorized)
        #expect(try await script.get("/account/tokens", headers: ["Accept": "application/json", "Authorization": "Bearer " + fixture.token]).status == .unauthorized)
    }

    @Test func aScimRequestNeedsNoCsrfTokenAndMakesNoSession() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let client = fixture.client()
        client.sendsCsrfToken = false
        let made = try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"bob"}"#, client: client)
        #expect(made.status == .created, "\(made.text)")
        #expect(made.headers.first(name: "Set-Cookie") == nil)
        let gone = try await fixture.send(.DELETE, "/scim/v2/Users/bob", client: client)
        #expect(gone.status == .noContent)
        #expect(gone.headers.first(name: "Set-Cookie") == nil)
    }

    @Test func aBurstOfBadTokensIsThrottledByAddressWhileTheRightTokenStillOpens() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        // The attacker and the provider share an address (a cloud's egress).
        let attacker = fixture.client(address: "203.0.113.9")
        let bad = ScimToken.prefix + String(repeating: "B", count: 43)
        for attempt in 0..<20 {
            let answer = try await fixture.send(.GET, "/scim/v2/Users", bearer: bad, client: attacker)
            #expect(answer.status == .unauthorized, "\(attempt)")
        }
        let locked = try await fixture.send(.GET, "/scim/v2/Users", bearer: bad, client: attacker)
        #expect(locked.status == .tooManyRequests)
        #expect(try ScimFixture.error(locked).status == "429")
        #expect(locked.headers.first(name: "Retry-After") != nil)
        #expect(try await fixture.send(.GET, "/scim/v2/Users", client: fixture.client(address: "198.51.100.7")).status == .ok)
        // The provider's token is let through from the throttled address, and counts as no failure.
        for _ in 0..<3 { #expect(try await fixture.send(.GET, "/scim/v2/Users", client: attacker).status == .ok) }
        #expect(try await fixture.send(.GET, "/scim/v2/Users", bearer: bad, client: attacker).status == .tooManyRequests)
    }

    @Test func tokensHaveTheirOwnShapeAndAreKeptAsDigests() async throws {
        let (secret, token) = ScimToken.make(name: "entra", now: 1000)
        #expect(ScimToken.isWellFormed(secret))
        #expect(!ApiTokenSecret.isWellFormed(secret))
        #expect(token.digest == ApiTokenSecret.digest(of: secret))
        #expect(token.digest != secret)
        #expect(ScimToken.problem(withName: "okta\u{202E}") != nil)
        #expect(ScimToken.problem(withName: "") != nil)
        #expect(ScimToken.problem(withName: "okta") == nil)
    }
}
