import Foundation
import Micro
import MicroOpenIdConnect
import MicroTestSupport
import MicroTesting
import Testing

/// A store user without an address gets the provider's verified `email` at their single
/// sign-on, so that mail (set-up and reset links) reaches them; nothing else is taken.
@Suite(.serialized) struct ProviderEmailTests {
    @Test func aVerifiedAddressFillsAMissingOneAndNeverReplacesOne() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let users = try await ProviderGroupsTests.table(folder)
        let app = ssoApp(provider, users: users)
        provider.state.withLock { $0.claims["email"] = .string("Ann@Corp.example") }
        let client = TestClient(app)
        #expect(try await signInThroughProvider(client, provider).status == .seeOther)
        #expect(try users.find(username: "ann")?.user.email == "Ann@Corp.example")
        // The session it began stands: an address is not part of the credential stamp.
        #expect(try await client.get("/protected").status == .ok)
        // Another address at the provider later: the store's stays (an admin may have set it).
        provider.state.withLock { $0.claims["email"] = .string("ann.new@corp.example") }
        #expect(try await signInThroughProvider(TestClient(app), provider).status == .seeOther)
        #expect(try users.find(username: "ann")?.user.email == "Ann@Corp.example")
    }

    @Test func anUnverifiedMalformedOrTakenAddressIsLeftOutAndTheSignInGoesOn() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let users = try await ProviderGroupsTests.table(folder)
        #expect(try await users.setEmail(of: "cy", to: "cy@corp.example") == .done)
        let app = ssoApp(provider, users: users)
        for (email, verified) in [("ann@corp.example", false), ("ann@corp.example\r\nBcc: eve@example.com", true), ("CY@corp.example", true)] {
            provider.state.withLock {
                $0.claims["email"] = .string(email)
                $0.claims["email_verified"] = .bool(verified)
            }
            let client = TestClient(app)
            #expect(try await signInThroughProvider(client, provider).status == .seeOther, "\(email)")
            #expect(try await client.get("/protected").status == .ok)
            #expect(try users.find(username: "ann")?.user.email == nil, "\(email)")
        }
        #expect(try users.find(username: "cy")?.user.email == "cy@corp.example")
    }
}
