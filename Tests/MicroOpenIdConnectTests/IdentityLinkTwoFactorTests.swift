import Foundation
import MicroAccounts
import MicroAuth
import MicroCore
import MicroOpenIdConnect
import MicroTesting
import MicroTwoFactor
import Testing

/// The proof of a user with two-factor sign-in on asks for their code too, taken once.
@Suite(.serialized) struct IdentityLinkTwoFactorTests {
    @Test func aUserWithTwoFactorProvesTheirPasswordAndACode() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-oidc-2fa-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try await Database.sqlite(path: folder.appendingPathComponent("app.db").path)
        // A store that can write: two-factor sign-in is offered only over one.
        let users = try SqliteUserStore(path: folder.appendingPathComponent("users.db").path, create: true)
        let password = "correct horse battery"
        try users.save(username: "ann", passwordHash: try Password.hash(password, cost: 4), name: nil)
        try users.save(username: "bob", passwordHash: try Password.hash(password, cost: 4), name: nil)
        let clock = MovableClock()
        let links = MemoryIdentityLinkStore()
        let app = ssoApp(provider, users: users, clock: clock.now, accounts: Accounts(database: database), configure: { $0.links = links })
        // Ann turns two-factor on with her password.
        let ann = TestClient(app)
        try await ann.signIn("ann", password)
        let setup = try await ann.post("/account/two-factor/setup", form: ["current_password": password])
        try #require(setup.status == .ok, "setup answered \(setup.status): \(setup.text.prefix(400))")
        let secretText = try #require(setup.text.components(separatedBy: "data-totp-secret=\"").dropFirst().first?.split(separator: "\"").first)
        let totp = Totp(secret: try #require(Base32.decode(String(secretText))))
        let seconds = { Int64(clock.now().timeIntervalSince1970) }
        #expect(try await ann.post("/account/two-factor/enable", form: ["code": totp.code(at: seconds())]).status == .ok)
        // Her provider account, on its first single sign-on: the page asks for both.
        clock.advance(31)
        provider.state.withLock { $0.clockOffset += 31 }
        let client = TestClient(app)
        let page = try await waitForProof(client, provider)
        #expect(page.text.contains("name=\"code\""))
        // Bob, without a second factor, is shown the same page: it does not tell a person not
        // yet proven whether the user has one.
        provider.state.withLock { $0.claims["preferred_username"] = .string("bob"); $0.claims["sub"] = .string("sub-bob") }
        let bobPage = try await waitForProof(TestClient(app), provider)
        provider.state.withLock { $0.claims["preferred_username"] = .string("ann"); $0.claims["sub"] = .string("sub-ann") }
        let withoutToken = { (text: String, name: String) in
            text.replacingOccurrences(of: #"name="_csrf" value="[^"]*""#, with: "", options: .regularExpression)
                .replacingOccurrences(of: name, with: "NAME")
        }
        #expect(withoutToken(page.text, "ann") == withoutToken(bobPage.text, "bob"))
        // The password alone, or with a wrong code, links nothing.
        #expect(try await client.post("/auth/oidc/link", form: ["password": password]).status == .unprocessableEntity)
        let wrong = try await client.post("/auth/oidc/link", form: ["password": password, "code": "000000"])
        #expect(wrong.status == .unprocessableEntity)
        #expect(wrong.text.contains("That is not the password or the code of ann."))
        #expect(try await links.username(linkedTo: ExternalIdentity(issuer: provider.issuer, subject: "sub-ann")) == nil)
        let right = try await client.post("/auth/oidc/link", form: ["password": password, "code": totp.code(at: seconds())])
        #expect(right.status == .seeOther)
        #expect(try await client.get("/protected").text.hasPrefix("Hello ann []"))
        #expect(try await links.username(linkedTo: ExternalIdentity(issuer: provider.issuer, subject: "sub-ann")) == "ann")
        await database.shutdown()
    }
}
