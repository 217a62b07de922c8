import Foundation
import Micro
import MicroOpenIdConnect
import MicroTesting
import Testing

/// Tokens a hostile or broken provider might send: each refused with `401 Single sign-on
/// failed`, nobody signed in.
@Suite(.serialized) struct IdTokenRefusalTests {
    @Test(arguments: [
        HostileProvider.Spoil.wrongSignature, .wrongAudience, .wrongIssuer, .wrongNonce, .expired, .issuedInFuture, .algNone,
        .hs256WithPublicKey, .jkuHeader, .embeddedJwk, .severalAudiencesWithoutAzp, .noKid, .bogusKid,
    ])
    func aSpoiledTokenSignsNobodyIn(_ spoil: HostileProvider.Spoil) async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        provider.state.withLock { $0.spoil = spoil }
        let client = TestClient(ssoApp(provider))
        let callback = try await signInThroughProvider(client, provider)
        #expect(callback.status == .unauthorized, "\(spoil)")
        #expect(callback.text.contains("Single sign-on failed"))
        #expect(try await client.get("/protected").status == .found)
    }

    @Test func anES256TokenIsAccepted() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        provider.state.withLock { $0.spoil = .es256 }
        let client = TestClient(ssoApp(provider))
        #expect(try await signInThroughProvider(client, provider).status == .seeOther)
        #expect(try await client.get("/protected").status == .ok)
    }

    @Test func aReplayedCodeIsRefusedByTheProvider() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let client = TestClient(ssoApp(provider))
        let location = try #require(try await client.post("/auth/oidc", form: [:]).location)
        let callback = try provider.approve(location)
        let code = try #require(URLComponents(string: callback)?.queryItems?.first { $0.name == "code" }?.value)
        #expect(try await client.get(callback).status == .seeOther)
        // A new flow in the same browser, answered with the old code: invalid_grant.
        let second = try #require(try await client.post("/auth/oidc", form: [:]).location)
        let state = try #require(URLComponents(string: second)?.queryItems?.first { $0.name == "state" }?.value)
        #expect(try await client.get("/auth/oidc/callback?code=\(code)&state=\(state)").status == .unauthorized)
    }

    @Test func aRotatedKeyIsFetchedOnceAndBogusKidsAtMostOnceAMinute() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let clock = MovableClock()
        let app = ssoApp(provider, clock: clock.now)
        #expect(try await signInThroughProvider(TestClient(app), provider).status == .seeOther)
        #expect(provider.jwksFetches == 1)
        provider.state.withLock { $0.rotated = true }
        let rotated = TestClient(app)
        #expect(try await signInThroughProvider(rotated, provider).status == .seeOther)
        #expect(provider.jwksFetches == 2)
        provider.state.withLock { $0.spoil = .bogusKid }
        for _ in 0..<3 {
            #expect(try await signInThroughProvider(TestClient(app), provider).status == .unauthorized)
        }
        #expect(provider.jwksFetches == 2)
        clock.advance(61)
        #expect(try await signInThroughProvider(TestClient(app), provider).status == .unauthorized)
        #expect(provider.jwksFetches == 3)
    }
}
