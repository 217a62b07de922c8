import Foundation
import MicroAccounts
import MicroAuth
import MicroCore
import MicroPasskeys
import MicroTestSupport
import MicroTesting
import SQLKit
import Testing

/// Adding a passkey asks, on its own request, for the password (and code) or one of the user's
/// passkeys, never on the strength of a proof given minutes before (a cookie copied then would
/// add the copier's passkey); and the page lists where each passkey was added from.
@Suite struct PasskeyAdditionTests {
    typealias Driver = PasskeyScriptDriver

    func options(_ client: TestClient, _ form: KeyValuePairs<String, String>) async throws -> TestResponse {
        try await client.post("/account/passkeys/options", form: form, headers: Driver.json)
    }

    @Test func aRecentProofDoesNotAddAPasskeyNorDoesACopyOfItsCookie() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, _) = try await Driver.makeApp(folder)
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        let first = try SoftwareAuthenticator(.es256)
        #expect(try await Driver.add(client, first).status == .created)
        // The password just given holds for removing a passkey, not for adding one.
        let page = try await client.get("/account/passkeys")
        #expect(!page.text.contains(#"id="password-"#), "a removal asks nothing within the proof's minutes")
        #expect(page.text.contains(#"id="passkey-password""#), "adding asks again")
        let bare = try await options(client, [:])
        #expect(bare.status == .unprocessableEntity && bare.text.contains("That is not your current password."), "\(bare.text)")

        let thief = TestClient(app)
        for (name, cookie) in client.cookies { thief.setCookie(name, cookie.value, path: cookie.path) }
        #expect(try await thief.get("/me").text == "user")
        #expect(try await options(thief, [:]).status == .unprocessableEntity)
        #expect(try await options(thief, ["current_password": "guess"]).status == .unprocessableEntity)
        #expect(try await Driver.add(client, try SoftwareAuthenticator(.es256)).status == .created, "the password adds one")
    }

    @Test func aPasskeyOfTheUsersOwnThatVerifiesThePersonConfirmsOneAddition() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database) = try await Driver.makeApp(folder)
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        var existing = try SoftwareAuthenticator(.es256)
        #expect(try await Driver.add(client, existing).status == .created)
        let handle = try #require(try await PasskeyStore(database).userHandle(of: "user"))
        let page = try await client.get("/account/passkeys")
        #expect(page.text.contains(#"data-proof-options="/account/passkeys/confirm/options""#) && page.text.contains("data-passkey-proof"))

        func proof(flags: UInt8 = SoftwareAuthenticator.presentAndVerified) async throws -> PasskeyAssertionResponse {
            existing.signCount += 1
            let asked = try Driver.object(try await client.post("/account/passkeys/confirm/options", form: [:], headers: Driver.json))
            return try existing.assert(
                try Driver.challenge(asked, for: .confirmation), relyingParty: Driver.relyingParty, userHandle: handle, flags: flags)
        }
        let present = try await options(client, Driver.fields(try await proof(flags: 0x01)))
        #expect(present.status == .unauthorized, "a passkey that only saw someone present is one factor")

        let answer = try await proof()
        let granted = try await options(client, Driver.fields(answer))
        #expect(granted.status == .ok, "\(granted.text)")
        let made = try SoftwareAuthenticator(.edDsa).register(
            try Driver.challenge(try Driver.object(granted), for: .registration), relyingParty: Driver.relyingParty)
        #expect(try await client.post("/account/passkeys", form: Driver.fields(made, name: "Phone"), headers: Driver.json).status == .created)
        #expect(Set(try await PasskeyStore(database).passkeys(of: "user").map(\.name)) == ["Laptop", "Phone"])
        #expect(try await options(client, Driver.fields(answer)).status == .unauthorized, "an answer confirms once")
    }

    @Test func aSingleSignOnSessionAddsWithThePasswordOrAPasskeyNotWithItsSignIn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, _) = try await Driver.makeApp(folder)
        try SqliteUserStore(path: folder.file("users.db")).save(username: "carl", passwordHash: StoredUser.noPasswordHash, name: nil, roles: [])
        let sso = TestClient(app)
        #expect(try await sso.post("/sso/user", form: [:]).status == .ok)
        #expect(try await options(sso, [:]).status == .unprocessableEntity, "a sign-in a moment ago adds nothing")
        #expect(try await options(sso, ["current_password": "secret123"]).status == .ok)

        let noPassword = TestClient(app)
        #expect(try await noPassword.post("/sso/carl", form: [:]).status == .ok)
        let page = try await noPassword.get("/account/passkeys")
        #expect(page.text.contains("Your account has no password here") && !page.text.contains("passkey-add"))
        #expect(try await options(noPassword, ["current_password": ""]).status == .forbidden)
    }

    @Test func thePageSaysWhereEachWasAddedFromWithInvisibleCharactersShown() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database) = try await Driver.makeApp(folder)
        let client = TestClient(app)
        client.remoteAddress = "203.0.113.9"
        let agent = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0 \u{202E}moc.live\u{200B}"
        client.defaultHeaders = ["User-Agent": agent]
        try await client.signIn("user", "secret123")
        #expect(try await Driver.add(client, try SoftwareAuthenticator(.es256)).status == .created)
        let stored = try #require(try await PasskeyStore(database).passkeys(of: "user").first)
        #expect(stored.addedFromAddress == "203.0.113.9" && stored.addedFromUserAgent == agent)

        let page = try await client.get("/account/passkeys")
        #expect(page.text.contains("from Firefox 128 on Linux at 203.0.113.9"), "\(page.text)")
        #expect(page.text.contains(#"\u{202E}moc.live\u{200B}""#), "the whole User-Agent, its invisible characters escaped")
        #expect(!page.text.unicodeScalars.contains { $0.value == 0x202E || $0.value == 0x200B })
        let listed = try await client.get("/account/passkeys", headers: Driver.json)
        struct Listed: Decodable { let addedFromAddress, addedFromBrowser, addedFromUserAgent: String }
        let json = try #require(try listed.decode([Listed].self).first)
        #expect(json.addedFromAddress == "203.0.113.9" && json.addedFromBrowser == "Firefox 128 on Linux")
        #expect(json.addedFromUserAgent.hasSuffix(#"\u{202E}moc.live\u{200B}"#))
    }

    @Test func whereItWasAddedFromIsKeptBoundedAtACharactersEdge() {
        let key = PasskeyPublicKey(algorithm: .es256, bytes: Array(repeating: 1, count: 64))
        let passkey = Passkey(
            credentialId: [1], username: "user", userHandle: [2], name: "Key", publicKey: key, signCount: 0, backupEligible: false, createdAt: 0,
            addedFromAddress: String(repeating: "1", count: 500), addedFromUserAgent: String(repeating: "€", count: 1000))
        #expect(passkey.addedFromAddress.utf8.count == 128)
        #expect(passkey.addedFromUserAgent.utf8.count == 510 && passkey.addedFromUserAgent.allSatisfy { $0 == "€" })
    }

    @Test func aTableMadeBeforeTheAddressesKeptItsPasskeys() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Database.sqlite(path: folder.file("app.db"))
        try await database.migrate([PasskeyStore.migrations[0]])
        try await database.sql.insert(into: "micro_passkeys")
            .columns("credential_id", "username", "user_handle", "name", "algorithm", "public_key", "sign_count", "backup_eligible", "created_at", "last_used_at")
            .values(
                SQLBind(Base64Url.encode([1, 2, 3])), SQLBind("user"), SQLBind(Base64Url.encode([4])), SQLBind("Old key"), SQLBind(-7),
                SQLBind(Base64Url.encode(Array(repeating: 5, count: 64))), SQLBind(0), SQLBind(0), SQLBind(1_700_000_000), SQLBind(0)
            ).run()
        try await database.migrate(PasskeyStore.migrations)
        let old = try #require(try await PasskeyStore(database).passkeys(of: "user").first)
        #expect(old.name == "Old key" && old.addedFromAddress.isEmpty && old.addedFromUserAgent.isEmpty)
        await database.shutdown()
    }
}
