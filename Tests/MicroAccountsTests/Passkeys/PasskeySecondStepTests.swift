import Foundation
import MicroAccounts
import MicroAuth
import MicroCore
import MicroPasskeys
import MicroTestSupport
import MicroTesting
import MicroTwoFactor
import SQLKit
import Testing

/// The second step of a sign-in answered by a passkey instead of a code, and passkeys of a user
/// who has a code-based second factor.
@Suite struct PasskeySecondStepTests {
    typealias Driver = PasskeyScriptDriver

    /// `client`, signed in as user, turns two-factor sign-in on; the secret and the recovery codes.
    func turnOnTwoFactor(_ client: TestClient) async throws -> (totp: Totp, codes: [String]) {
        let setup = try await client.turnOnTwoFactor(password: "secret123") { Totp(secret: Base32.decode($0) ?? []).code(at: Int64(Date().timeIntervalSince1970)) }
        return (Totp(secret: try #require(Base32.decode(setup.secret))), setup.recoveryCodes)
    }

    /// A client of `app` where user turned two-factor sign-in on, added `authenticator`'s
    /// passkey and signed out; with the recovery codes.
    func userWithCodeAndPasskey(_ app: App, _ authenticator: SoftwareAuthenticator) async throws -> (client: TestClient, codes: [String]) {
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        let (totp, codes) = try await turnOnTwoFactor(client)
        #expect(try await Driver.addWithCode(client, authenticator, code: nextCode(totp)).status == .created)
        _ = try await client.signOut()
        return (client, codes)
    }

    /// A code of `totp` not used yet: the one after the step that turned it on.
    func nextCode(_ totp: Totp) -> String {
        totp.code(at: Int64(Date().timeIntervalSince1970) + 30)
    }

    @Test func aPasskeyMayAnswerTheSecondStepInsteadOfACode() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database) = try await Driver.makeApp(folder)
        var authenticator = try SoftwareAuthenticator(.es256)
        let (client, _) = try await userWithCodeAndPasskey(app, authenticator)
        // Ann's passkey, which must not answer for user.
        var annsKey = try SoftwareAuthenticator(.es256)
        let ann = TestClient(app)
        try await ann.signIn("ann", "ann-password")
        #expect(try await Driver.add(ann, annsKey, password: "ann-password").status == .created)
        let annsHandle = try #require(try await PasskeyStore(database).userHandle(of: "ann"))
        let handle = try #require(try await PasskeyStore(database).userHandle(of: "user"))

        #expect(try await client.post("/signin/two-factor/passkey/options", form: [:], headers: Driver.json).status == .unauthorized, "no one waits")
        let first = try await client.post("/signin", form: ["username": "user", "password": "secret123"])
        #expect(first.location == "/signin/two-factor")
        let page = try await client.get("/signin/two-factor")
        #expect(page.text.contains(#"<form id="passkey-second-step" method="post" action="/signin/two-factor/passkey" data-passkey="get""#))
        #expect(page.text.contains(#"<script src="/account/passkeys.js" defer></script>"#))

        let usersCredential = Base64Url.encode(authenticator.credentialId)
        func answer(_ authenticator: SoftwareAuthenticator, handle: [UInt8]) async throws -> TestResponse {
            let options = try Driver.object(try await client.post("/signin/two-factor/passkey/options", form: [:], headers: Driver.json))
            #expect((options["allowCredentials"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [usersCredential], "the user's only")
            let response = try authenticator.assert(
                try Driver.challenge(options, for: .secondFactor), relyingParty: Driver.relyingParty, userHandle: handle, flags: 0x01)
            return try await client.post("/signin/two-factor/passkey", form: Driver.fields(response), headers: Driver.json)
        }
        annsKey.signCount = 2
        let foreign = try await answer(annsKey, handle: annsHandle)
        #expect(foreign.status == .unauthorized, "another user's passkey")
        #expect(try await client.get("/me").location == "/signin")

        authenticator.signCount = 2
        let answered = try await answer(authenticator, handle: handle)
        #expect(answered.text == #"{"location":"/me"}"#, "\(answered.text)")
        #expect(try await client.get("/me").text == "user")
        let events = try await database.sql.select().column("event").column("detail").from("micro_activity").all().map {
            try $0.decode(column: "event", as: String.self) + ":" + $0.decode(column: "detail", as: String.self)
        }
        #expect(events.contains("signed_in:password+passkey") && events.filter { $0.hasPrefix("sign_in_failed") }.count == 1)
    }

    @Test func aPasskeyThatBeganTheSignInIsNotItsSecondStep() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database) = try await Driver.makeApp(folder)
        var authenticator = try SoftwareAuthenticator(.es256)
        let (client, codes) = try await userWithCodeAndPasskey(app, authenticator)
        let handle = try #require(try await PasskeyStore(database).userHandle(of: "user"))

        // Present but not verified: one factor, then the code's page, which offers no passkey.
        authenticator.signCount = 2
        let first = try await Driver.signIn(client, authenticator, userHandle: handle, flags: 0x01)
        #expect(first.text == #"{"location":"/signin/two-factor"}"#)
        let page = try await client.get("/signin/two-factor")
        #expect(page.status == .ok && !page.text.contains("passkey-second-step"))
        let again = try await client.post("/signin/two-factor/passkey/options", form: [:], headers: Driver.json)
        #expect(again.status == .forbidden && again.text.contains("Your passkey began this sign-in"))
        #expect(try await client.get("/me").location == "/signin")
        // A recovery code finishes it, recorded as the passkey and the code.
        let signedIn = try await client.post("/signin/two-factor", form: ["code": codes[0]])
        #expect(signedIn.status == .seeOther)
        #expect(try await client.get("/me").text == "user")
        let details = try await database.sql.select().column("detail").from("micro_activity").where("event", .equal, "signed_in").all()
            .map { try $0.decode(column: "detail", as: String.self) }
        #expect(details.last == "passkey+recovery_code")
    }

    @Test func addingAPasskeyAsksForTheCodeWhereASecondFactorIsOn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database) = try await Driver.makeApp(folder)
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        let (totp, _) = try await turnOnTwoFactor(client)
        let page = try await client.get("/account/passkeys")
        #expect(page.text.contains(#"id="passkey-code" name="code""#))
        // The password alone, as a stolen one would be, makes no passkey.
        let passwordOnly = try await client.post("/account/passkeys/options", form: ["current_password": "secret123"], headers: Driver.json)
        #expect(passwordOnly.status == .unprocessableEntity && passwordOnly.text.contains("code"))
        let wrongCode = try await client.post(
            "/account/passkeys/options", form: ["current_password": "secret123", "code": "000000"], headers: Driver.json)
        #expect(wrongCode.status == .unprocessableEntity)
        #expect(try await Driver.addWithCode(client, try SoftwareAuthenticator(.es256), code: nextCode(totp)).status == .created)
        #expect(try await PasskeyStore(database).passkeys(of: "user").count == 1)
        // The next passkey asks again: a proof of minutes ago adds none.
        #expect(try await client.get("/account/passkeys").text.contains(#"id="passkey-code""#))
        let again = try await client.post("/account/passkeys/options", form: ["current_password": "secret123"], headers: Driver.json)
        #expect(again.status == .unprocessableEntity && again.text.contains("code"))
    }
}
