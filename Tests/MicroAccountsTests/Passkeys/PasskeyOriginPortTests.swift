import Foundation
import MicroAccounts
import MicroAuth
import MicroCore
import MicroPasskeys
import MicroTestSupport
import MicroTesting
import Testing

/// Without a public URL, a passkey answer counts only for the port the app listens on: a page
/// on another port of the same host may ask the browser for the passkey (it is bound to the
/// host, not the port) and relay the answer with its own port in `Host`.
@Suite struct PasskeyOriginPortTests {
    typealias Driver = PasskeyScriptDriver
    static let appPort = 4567

    /// A client whose requests reach the app's port, naming `hostPort` in `Host`.
    func client(_ app: App, hostPort: Int) -> TestClient {
        let client = TestClient(app)
        client.localPort = Self.appPort
        client.defaultHeaders = ["Host": "localhost:\(hostPort)"]
        return client
    }

    @Test func anAnswerRelayedWithAnotherPortInHostIsNeverAskedForNorAccepted() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database) = try await Driver.makeApp(folder)
        let party = try #require(PasskeyRelyingParty(origin: "http://localhost:\(Self.appPort)"))
        let elsewhere = try #require(PasskeyRelyingParty(origin: "http://localhost:18539"))
        #expect(party.id == elsewhere.id, "one passkey serves both: it is bound to the host")

        let owner = client(app, hostPort: Self.appPort)
        try await owner.signIn("user", "secret123")
        let authenticator = try SoftwareAuthenticator(.es256, signCount: 1)
        let options = try await Driver.creationOptions(owner, password: "secret123")
        let made = try authenticator.register(try Driver.challenge(options, for: .registration), relyingParty: party)
        #expect(try await owner.post("/account/passkeys", form: Driver.fields(made, name: "Laptop"), headers: Driver.json).status == .created)
        _ = try await owner.signOut()
        let handle = try #require(try await PasskeyStore(database).userHandle(of: "user"))

        // The other port's page: no button, no options, and an answer made for its origin
        // (with a challenge the app's own port gave) is refused like a forged one.
        let relay = client(app, hostPort: 18539)
        #expect(try await !relay.get("/signin").text.contains("passkey"))
        #expect(try await relay.post("/signin/passkey/options", form: [:], headers: Driver.json).status == .notFound)
        let given = try await Driver.signInOptions(owner)
        let answer = try authenticator.assert(
            try Driver.challenge(given, for: .signIn), relyingParty: elsewhere, userHandle: handle)
        let relayed = try await relay.post("/signin/passkey", form: Driver.fields(answer), headers: Driver.json)
        #expect(relayed.status == .notFound)
        #expect(try await relay.get("/me").location == "/signin")

        // The app's own port signs in with the same passkey.
        var same = authenticator
        same.signCount = 2
        let own = try same.assert(
            try Driver.challenge(try await Driver.signInOptions(owner), for: .signIn), relyingParty: party, userHandle: handle)
        #expect(try await owner.post("/signin/passkey", form: Driver.fields(own), headers: Driver.json).status == .ok)
        #expect(try await owner.get("/me").text == "user")
    }

    @Test func aPublicUrlDecidesTheOriginWhateverPortTheAppListensOn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, _) = try await Driver.makeApp(folder)
        app.settings.publicUrl = "http://localhost:8080"
        // Behind a proxy on 8080, the app listening on 4567: the public URL is the origin.
        let client = client(app, hostPort: 8080)
        let options = try await Driver.signInOptions(client)
        #expect(options["rpId"] as? String == "localhost")
    }
}
