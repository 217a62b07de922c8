import Foundation
import Micro
import MicroAccounts
import MicroAuth
import MicroCore
import MicroPasskeys
import MicroTestSupport
import MicroTesting
import Testing

/// The account page of passkeys through the test client, with a software authenticator in the
/// browser's place: adding one after the password, the list, renaming, removing, the limit,
/// replays, and where there can be none.
@Suite struct PasskeyPageTests {
    typealias Driver = PasskeyScriptDriver
    let relyingParty = Driver.relyingParty
    static let json = Driver.json

    func makeApp(_ folder: TemporaryFolder, configure: (inout Accounts) -> Void = { _ in }) async throws -> (App, Database) {
        try await Driver.makeApp(folder, configure: configure)
    }

    func options(_ client: TestClient, password: String) async throws -> [String: Any] {
        try await Driver.creationOptions(client, password: password)
    }

    func challenge(_ options: [String: Any]) throws -> PasskeyChallenge {
        try Driver.challenge(options, for: .registration)
    }

    func fields(_ response: PasskeyRegistrationResponse, name: String) -> KeyValuePairs<String, String> {
        Driver.fields(response, name: name)
    }

    func add(_ client: TestClient, _ authenticator: SoftwareAuthenticator, name: String = "Laptop") async throws -> TestResponse {
        try await Driver.add(client, authenticator, name: name)
    }

    func events(_ client: TestClient) async throws -> String {
        try await client.get("/account/activity", headers: Self.json).text
    }

    @Test func aPasskeyIsAddedAfterThePasswordAndListed() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database) = try await makeApp(folder)
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        #expect(try await client.get("/account").text.contains(#"href="/account/passkeys""#))
        let empty = try await client.get("/account/passkeys")
        #expect(empty.text.contains(#"data-passkeys="none""#))
        #expect(empty.text.contains(#"data-options="/account/passkeys/options""#) && empty.text.contains(#"<script src="/account/passkeys.js" defer>"#))

        let wrong = try await client.post("/account/passkeys/options", form: ["current_password": "nope"], headers: Self.json)
        #expect(wrong.status == .unprocessableEntity && wrong.text.contains("That is not your current password."))
        #expect(try await events(client).contains(#""event":"sign_in_failed""#), "a wrong password counts as a failed sign-in")

        let options = try await options(client, password: "secret123")
        #expect((options["rp"] as? [String: Any])?["id"] as? String == "localhost")
        let user = try #require(options["user"] as? [String: Any])
        #expect(user["name"] as? String == "user")
        let handle = try #require(user["id"] as? String)
        #expect(Base64Url.decode(handle)?.count == 32 && handle != Base64Url.encode(Array("user".utf8)))
        #expect((options["excludeCredentials"] as? [Any])?.isEmpty == true)

        let authenticator = try SoftwareAuthenticator(.es256)
        let made = try authenticator.register(try challenge(options), relyingParty: relyingParty)
        let added = try await client.post("/account/passkeys", form: fields(made, name: "  Laptop  "), headers: Self.json)
        #expect(added.status == .created, "\(added.text)")
        #expect(added.text == #"{"location":"/account/passkeys"}"#)
        let page = try await client.get("/account/passkeys")
        let id = Base64Url.encode(authenticator.credentialId)
        #expect(page.text.contains(#"data-passkey="\#(id)""#) && page.text.contains("<strong>Laptop</strong>") && page.text.contains("never used"))
        #expect(page.text.contains("Passkey added."))
        #expect(try await events(client).contains(#""event":"passkey_added""#))
        let stored = try await PasskeyStore(database).passkeys(of: "user")
        #expect(stored.map(\.name) == ["Laptop"] && stored.first?.userHandle == Base64Url.decode(handle))

        // The next dialog excludes it, and keeps the user's handle.
        let next = try await self.options(client, password: "secret123")
        #expect((next["excludeCredentials"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [id])
        #expect((next["user"] as? [String: Any])?["id"] as? String == handle)
        let listed = try await client.get("/account/passkeys", headers: Self.json)
        #expect(listed.text.contains(#""id":"\#(id)""#) && listed.text.contains(#""name":"Laptop""#) && !listed.text.contains("lastUsedAt"))
    }

    @Test func anAnswerIsTakenOnceEvenWithAnOldCopyOfTheCookie() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, _) = try await makeApp(folder)
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        let authenticator = try SoftwareAuthenticator(.edDsa)
        let made = try authenticator.register(try challenge(try await options(client, password: "secret123")), relyingParty: relyingParty)
        let copy = client.cookies
        #expect(try await client.post("/account/passkeys", form: fields(made, name: "Key"), headers: Self.json).status == .created)
        let again = try await client.post("/account/passkeys", form: fields(made, name: "Key"), headers: Self.json)
        #expect(again.status == .unprocessableEntity && again.text.contains("expired or was already used"))
        for (name, cookie) in copy { client.setCookie(name, cookie.value, path: cookie.path) }
        let replayed = try await client.post("/account/passkeys", form: fields(made, name: "Key"), headers: Self.json)
        #expect(replayed.status == .unprocessableEntity && replayed.text.contains("expired or was already used"))

        // No challenge at all: a form posted without the dialog, or by hand.
        let stranger = try SoftwareAuthenticator(.es256)
        let unasked = try stranger.register(PasskeyChallenge(purpose: .registration, now: 0), relyingParty: relyingParty)
        #expect(try await client.post("/account/passkeys", form: fields(unasked, name: "Key"), headers: Self.json).status == .unprocessableEntity)
        #expect(try await client.post("/account/passkeys", form: ["name": "Key"]).status == .badRequest)
    }

    @Test func twoDialogsForAFirstPasskeyGiveItOneUserHandle() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database) = try await makeApp(folder)
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        // Two tabs, or a dialog tried again: the authenticator keeps the handle the first gave.
        let first = try await options(client, password: "secret123")
        let second = try await options(client, password: "secret123")
        let handle = try #require((first["user"] as? [String: Any])?["id"] as? String)
        #expect((second["user"] as? [String: Any])?["id"] as? String == handle)
        let authenticator = try SoftwareAuthenticator(.es256)
        let made = try authenticator.register(try challenge(first), relyingParty: relyingParty)
        #expect(try await client.post("/account/passkeys", form: fields(made, name: "Key"), headers: Self.json).status == .created)
        #expect(try await PasskeyStore(database).userHandle(of: "user") == Base64Url.decode(handle))
    }

    @Test func aChallengeMadeForOneUserDoesNotServeAnother() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database) = try await makeApp(folder)
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        let authenticator = try SoftwareAuthenticator(.es256)
        let made = try authenticator.register(try challenge(try await options(client, password: "secret123")), relyingParty: relyingParty)
        // Ann signs in on the same browser without signing out: the session keeps its values.
        try await client.signIn("ann", "ann-password")
        let answer = try await client.post("/account/passkeys", form: fields(made, name: "Key"), headers: Self.json)
        #expect(answer.status == .unprocessableEntity && answer.text.contains("expired or was already used"))
        #expect(try await PasskeyStore(database).counts().isEmpty)
        // The control: the same kind of answer, for user in user's session, is taken.
        try await client.signIn("user", "secret123")
        #expect(try await add(client, authenticator).status == .created)
    }

    @Test func namesAreBoundedAndPasskeysRenamedAndRemovedByTheirOwnerOnly() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database) = try await makeApp(folder)
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        let authenticator = try SoftwareAuthenticator(.rs256)
        for bad in ["", "   ", String(repeating: "a", count: 65), "Laptop\u{202E}poT", "a\u{0}b", "\u{301}" + String(repeating: "\u{301}", count: 2000)] {
            #expect(try await add(client, authenticator, name: bad).status == .unprocessableEntity, "\(bad.debugDescription)")
        }
        #expect(try await add(client, authenticator, name: "e\u{301}te\u{301}").status == .created)
        let stored = try #require(try await PasskeyStore(database).passkeys(of: "user").first)
        #expect(stored.name == "été", "kept in NFC")
        let id = Base64Url.encode(authenticator.credentialId)

        #expect(try await client.post("/account/passkeys/\(id)/rename", form: ["name": "\u{202E}x"]).status == .unprocessableEntity)
        let renamed = try await client.post("/account/passkeys/\(id)/rename", form: ["name": "Work laptop"])
        #expect(renamed.status == .seeOther && renamed.location == "/account/passkeys")
        #expect(try await client.get("/account/passkeys").text.contains("<strong>Work laptop</strong>"))
        #expect(try await client.post("/account/passkeys/!!/rename", form: ["name": "x"]).status == .notFound)
        #expect(try await client.post("/account/passkeys/\(String(repeating: "A", count: 2000))/remove", form: [:]).status == .notFound)

        // Ann cannot touch it.
        let other = TestClient(app)
        try await other.signIn("ann", "ann-password")
        #expect(try await other.post("/account/passkeys/\(id)/rename", form: ["name": "Mine"]).status == .notFound)
        #expect(try await other.post("/account/passkeys/\(id)/remove", form: ["current_password": "ann-password"]).status == .notFound)

        // Another browser of the user's, where no proof holds yet: the password first.
        let elsewhere = TestClient(app)
        try await elsewhere.signIn("user", "secret123")
        let unconfirmed = try await elsewhere.post("/account/passkeys/\(id)/remove", form: ["current_password": "wrong"])
        #expect(unconfirmed.status == .unprocessableEntity)
        #expect(try await PasskeyStore(database).passkeys(of: "user").count == 1)
        let removed = try await elsewhere.post("/account/passkeys/\(id)/remove", form: ["current_password": "secret123"])
        #expect(removed.status == .seeOther)
        #expect(try await PasskeyStore(database).passkeys(of: "user").isEmpty)
        #expect(try await events(elsewhere).contains(#""event":"passkey_removed""#))
    }

    @Test func aUserHasAtMostTheLimit() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, _) = try await makeApp(folder) { $0.passkeys.limit = 2 }
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        for _ in 0..<2 { #expect(try await add(client, try SoftwareAuthenticator(.es256)).status == .created) }
        let page = try await client.get("/account/passkeys")
        #expect(page.text.contains("You have as many passkeys as you may") && !page.text.contains("passkey-add"))
        let refused = try await client.post("/account/passkeys/options", form: ["current_password": "secret123"], headers: Self.json)
        #expect(refused.status == .unprocessableEntity)
    }

    @Test func aUserForgottenAsTheRemoveUserCommandDoesLeavesNoPasskeys() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database) = try await makeApp(folder)
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        #expect(try await add(client, try SoftwareAuthenticator(.es256)).status == .created)
        try await AccountLeftovers.forget("USER", in: database)
        #expect(try await PasskeyStore(database).counts().isEmpty)
    }

    @Test func thereAreNoPasskeysOnAnAddressABrowserWouldRefuse() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database) = try await makeApp(folder)
        let atLocalhost = TestClient(app)
        try await atLocalhost.signIn("user", "secret123")
        let authenticator = try SoftwareAuthenticator(.es256)
        #expect(try await add(atLocalhost, authenticator).status == .created)
        let client = TestClient(app)
        client.defaultHeaders = ["Host": "127.0.0.1"]
        try await client.signIn("user", "secret123")
        let page = try await client.get("/account/passkeys")
        #expect(page.text.contains("reached by a domain name over HTTPS") && !page.text.contains("passkey-add"))
        #expect(try await client.post("/account/passkeys/options", form: ["current_password": "secret123"]).status == .forbidden)
        // One made at another address is still listed here, and can be removed.
        #expect(page.text.contains("<strong>Laptop</strong>"))
        let id = Base64Url.encode(authenticator.credentialId)
        #expect(try await client.post("/account/passkeys/\(id)/remove", form: ["current_password": "secret123"]).status == .seeOther)
        #expect(try await PasskeyStore(database).counts().isEmpty)
    }

    @Test func withoutADatabaseThePageSaysWhy() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = isolatedApp()
        var authentication = Authentication(users: try UserStoreKind.sqlite.make(in: folder))
        authentication.passwordCost = 4
        app.use(authentication)
        app.use(Accounts())
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        #expect(!(try await client.get("/account").text.contains("/account/passkeys")))
        #expect(try await client.get("/account/passkeys").text.contains("Passkeys need a database"))
    }

    @Test func theScriptIsOneSameOriginFileCheckedAgainByTheBrowser() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, _) = try await makeApp(folder)
        let client = TestClient(app)
        let script = try await client.get("/account/passkeys.js")
        #expect(script.status == .ok && script.contentType == "text/javascript; charset=utf-8")
        #expect(script.headers.first(name: "Cache-Control") == "no-cache")
        let tag = try #require(script.headers.first(name: "ETag"))
        #expect(try await client.get("/account/passkeys.js", headers: ["If-None-Match": tag]).status == .notModified)
        #expect(script.text.contains("navigator.credentials.create"))
        try await client.signIn("user", "secret123")
        let page = try await client.get("/account/passkeys")
        #expect(page.headers.first(name: "Content-Security-Policy")?.contains("script-src 'self'") == true)
        #expect(!page.text.contains("<script>"), "no inline script")
    }
}
