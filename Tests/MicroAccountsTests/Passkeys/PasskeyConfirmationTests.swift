import Foundation
import MicroAccounts
import MicroAuth
import MicroCore
import MicroPasskeys
import MicroTestSupport
import MicroTesting
import Testing

/// Confirming the passkeys page's changes with a passkey instead of the current password: only
/// the user's own, only one that verified the person, once per dialog, and then as a right
/// password does for a few minutes.
@Suite struct PasskeyConfirmationTests {
    typealias Driver = PasskeyScriptDriver

    /// An app where `user` has added one passkey and signed in again, so that the proof of
    /// the password given to add it no longer holds; the client is signed in as `user`.
    func userWithPasskey(_ folder: TemporaryFolder) async throws -> (App, TestClient, SoftwareAuthenticator, [UInt8], Database) {
        let (app, database) = try await Driver.makeApp(folder)
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        let authenticator = try SoftwareAuthenticator(.es256)
        #expect(try await Driver.add(client, authenticator).status == .created)
        _ = try await client.signOut()
        try await client.signIn("user", "secret123")
        let handle = try #require(try await PasskeyStore(database).userHandle(of: "user"))
        return (app, client, authenticator, handle, database)
    }

    /// Answers the confirmation's dialog with `authenticator`, its counter moved on.
    func confirm(_ client: TestClient, _ authenticator: inout SoftwareAuthenticator, handle: [UInt8], flags: UInt8 = SoftwareAuthenticator.presentAndVerified)
        async throws -> TestResponse
    {
        authenticator.signCount += 1
        let options = try Driver.object(try await client.post("/account/passkeys/confirm/options", form: [:], headers: Driver.json))
        let response = try authenticator.assert(
            try Driver.challenge(options, for: .confirmation), relyingParty: Driver.relyingParty, userHandle: handle, flags: flags)
        return try await client.post("/account/passkeys/confirm", form: Driver.fields(response), headers: Driver.json)
    }

    @Test func aPasskeyThatVerifiesThePersonConfirmsInsteadOfThePassword() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (_, client, added, handle, database) = try await userWithPasskey(folder)
        var authenticator = added
        let id = Base64Url.encode(authenticator.credentialId)
        let page = try await client.get("/account/passkeys")
        #expect(page.text.contains(#"<form id="passkey-confirm" method="post" action="/account/passkeys/confirm" data-passkey="get" data-options="/account/passkeys/confirm/options">"#))
        #expect(page.text.contains(#"name="current_password""#) && page.text.contains(#"<script src="/account/passkeys.js" defer></script>"#))

        let options = try Driver.object(try await client.post("/account/passkeys/confirm/options", form: [:], headers: Driver.json))
        #expect(options["userVerification"] as? String == "required")
        #expect((options["allowCredentials"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [id])

        let confirmed = try await confirm(client, &authenticator, handle: handle)
        #expect(confirmed.status == .ok && confirmed.text == #"{"location":"/account/passkeys"}"#, "\(confirmed.text)")
        let after = try await client.get("/account/passkeys")
        #expect(after.text.contains("Confirmed with your passkey") && !after.text.contains("passkey-confirm"))
        #expect(!after.text.contains(#"id="password-"#), "a removal asks for no password")
        #expect(after.text.contains(#"id="passkey-password""#), "adding one still does")
        #expect(try await client.get("/account/activity", headers: Driver.json).text.contains(#""event":"passkey_used""#))
        // The change then needs no password, as after a right one.
        #expect(try await client.post("/account/passkeys/\(id)/remove", form: [:]).status == .seeOther)
        #expect(try await PasskeyStore(database).passkeys(of: "user").isEmpty)
    }

    @Test func aPasskeyThatOnlySawSomeonePresentOrIsAnothersDoesNotConfirm() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, client, added, handle, database) = try await userWithPasskey(folder)
        var authenticator = added
        let id = Base64Url.encode(authenticator.credentialId)
        let present = try await confirm(client, &authenticator, handle: handle, flags: 0x01)
        #expect(present.status == .unauthorized && present.text.contains("That passkey did not sign you in."))
        let refused = try await client.post("/account/passkeys/\(id)/remove", form: [:])
        #expect(refused.status == .unprocessableEntity && refused.text.contains("That is not your current password."))
        #expect(try await client.get("/account/activity", headers: Driver.json).text.contains(#""event":"sign_in_failed""#))

        // The same answer twice: its challenge is spent.
        let options = try Driver.object(try await client.post("/account/passkeys/confirm/options", form: [:], headers: Driver.json))
        authenticator.signCount += 1
        let answer = try authenticator.assert(try Driver.challenge(options, for: .confirmation), relyingParty: Driver.relyingParty, userHandle: handle)
        #expect(try await client.post("/account/passkeys/confirm", form: Driver.fields(answer), headers: Driver.json).status == .ok)
        #expect(try await client.post("/account/passkeys/confirm", form: Driver.fields(answer), headers: Driver.json).status == .unauthorized)

        // Another user can neither ask with no passkey of their own, nor answer with this one.
        let ann = TestClient(app)
        try await ann.signIn("ann", "ann-password")
        let none = try await ann.post("/account/passkeys/confirm/options", form: [:], headers: Driver.json)
        #expect(none.status == .unprocessableEntity && none.text.contains("You have no passkey to confirm with"))
        #expect(try await !ann.get("/account/passkeys").text.contains("passkey-confirm"))
        #expect(try await Driver.add(ann, try SoftwareAuthenticator(.es256), password: "ann-password").status == .created)
        _ = try await ann.signOut()
        try await ann.signIn("ann", "ann-password")
        let annsOptions = try Driver.object(try await ann.post("/account/passkeys/confirm/options", form: [:], headers: Driver.json))
        authenticator.signCount += 1
        let foreign = try authenticator.assert(
            try Driver.challenge(annsOptions, for: .confirmation), relyingParty: Driver.relyingParty, userHandle: handle)
        #expect(try await ann.post("/account/passkeys/confirm", form: Driver.fields(foreign), headers: Driver.json).status == .unauthorized)
        #expect(try await ann.get("/account/passkeys").text.contains(#"id="password-"#), "ann's proof does not hold")
        #expect(try await PasskeyStore(database).passkeys(of: "user").count == 1)
    }

    @Test func aConfirmationNeedsABrowserSignedIn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, client, _, _, _) = try await userWithPasskey(folder)
        let anonymous = TestClient(app)
        let options = try await anonymous.post("/account/passkeys/confirm/options", form: [:], headers: Driver.json)
        #expect(options.status == .unauthorized)
        // A form posted without the page's script (no answer's fields) says what is missing.
        let bare = try await client.post("/account/passkeys/confirm", form: [:], headers: Driver.json)
        #expect(bare.status == .badRequest && bare.text.contains("needs the page's script"), "\(bare.text)")
    }
}
