import Foundation
import Micro
import MicroAccounts
import MicroAuth
import MicroCore
import MicroPasskeys
import MicroTestSupport
import MicroTesting
import MicroTwoFactor
import SQLKit
import Testing

/// Signing in with a passkey through the test client, with a software authenticator in the
/// browser's place: no name typed, the remembered page, one message for every refusal, the
/// throttle, and the passkey as two factors or one.
@Suite struct PasskeySignInTests {
    typealias Driver = PasskeyScriptDriver

    /// An app where `user` added `authenticator`'s passkey (then signed out); the user handle.
    func registered(_ authenticator: SoftwareAuthenticator, in app: App, database: Database) async throws -> [UInt8] {
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        #expect(try await Driver.add(client, authenticator).status == .created)
        _ = try await client.signOut()
        return try #require(try await PasskeyStore(database).userHandle(of: "user"))
    }

    func events(_ database: Database) async throws -> [String] {
        try await database.sql.select().column("event").column("detail").from("micro_activity").all().map {
            try $0.decode(column: "event", as: String.self) + ":" + $0.decode(column: "detail", as: String.self)
        }
    }

    @Test func aPasskeySignsInWithNoNameTypedAndLandsOnTheRememberedPage() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database) = try await Driver.makeApp(folder)
        var authenticator = try SoftwareAuthenticator(.es256, signCount: 3)
        let handle = try await registered(authenticator, in: app, database: database)
        let client = TestClient(app)
        #expect(try await client.get("/me").location == "/signin", "remembers /me")
        let before = client.cookies
        authenticator.signCount = 4
        let answer = try await Driver.signIn(client, authenticator, userHandle: handle)
        #expect(answer.status == .ok, "\(answer.text)")
        #expect(answer.text == #"{"location":"/me"}"#)
        #expect(try await client.get("/me").text == "user")
        #expect(client.cookies != before, "a new session identity")
        let stored = try #require(try await PasskeyStore(database).passkeys(of: "user").first)
        #expect(stored.signCount == 4 && stored.lastUsedAt > 0)
        let recorded = try await events(database)
        #expect(recorded.contains("signed_in:passkey") && recorded.contains("passkey_used:Laptop"))
        #expect(try await client.get("/account/passkeys").text.contains("last used"))
    }

    @Test func everyRefusalSaysNoMoreThanAWrongPasswordAndCountsAsAFailure() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let log = LogRecorder()
        let (app, database) = try await Driver.makeApp(folder, log: log)
        var authenticator = try SoftwareAuthenticator(.edDsa, signCount: 10)
        let handle = try await registered(authenticator, in: app, database: database)
        let client = TestClient(app)
        let refusal = "That passkey did not sign you in. Try again, or sign in with your password."
        func refused(_ answer: TestResponse, _ what: String) {
            #expect(answer.status == .unauthorized, "\(what)")
            #expect(answer.text.contains(refusal), "\(what): \(answer.text)")
        }
        let stranger = try SoftwareAuthenticator(.edDsa)
        refused(try await Driver.signIn(client, stranger, userHandle: handle), "an unknown passkey")
        authenticator.signCount = 11
        refused(try await Driver.signIn(client, authenticator, userHandle: handle) { $0.signature = Base64Url.encode([UInt8](repeating: 1, count: 64)) }, "a bad signature")
        refused(try await Driver.signIn(client, authenticator, userHandle: Array(repeating: 9, count: 32)), "another user's handle")
        refused(try await Driver.signIn(client, authenticator, userHandle: handle, flags: 0x04), "no one present")
        authenticator.signCount = 9
        refused(try await Driver.signIn(client, authenticator, userHandle: handle), "a counter that went back")
        #expect(log.messages(at: .warning).contains { $0.contains("counter that went back: it may have been copied") }, "logged as a possible copy")
        authenticator.signCount = 12
        // An answer for a challenge that was never given, or given and spent.
        let unasked = try authenticator.assert(
            PasskeyChallenge(purpose: .signIn, now: 0), relyingParty: Driver.relyingParty, userHandle: handle)
        refused(try await client.post("/signin/passkey", form: Driver.fields(unasked), headers: Driver.json), "a challenge never given")
        // Malformed fields are the client's mistake, and named; they count all the same.
        let malformed = try await client.post(
            "/signin/passkey", form: ["credential_id": "!!", "client_data": "x", "authenticator_data": "x", "signature": "x"], headers: Driver.json)
        #expect(malformed.status == .badRequest && malformed.text.contains("credential id"))
        #expect(try await client.post("/signin/passkey", form: ["credential_id": "AAAA"], headers: Driver.json).status == .badRequest)
        #expect(try await client.get("/me").location == "/signin", "nobody signed in")

        // Each of those 8 was a failed sign-in of the client's address: 12 more reach its limit
        // (20), and then even the right answer is refused.
        for _ in 0..<12 { refused(try await Driver.signIn(client, stranger, userHandle: handle), "an unknown passkey again") }
        let limited = try await Driver.signIn(client, authenticator, userHandle: handle)
        #expect(limited.status == .tooManyRequests && limited.headers.first(name: "Retry-After") != nil)
    }

    @Test func aMalformedAnswerIsRefusedAlikeForAKnownAndAnUnknownPasskey() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database) = try await Driver.makeApp(folder)
        let authenticator = try SoftwareAuthenticator(.es256, signCount: 0)
        let handle = try await registered(authenticator, in: app, database: database)
        let stranger = try SoftwareAuthenticator(.es256, signCount: 0)
        let client = TestClient(app)
        for (what, change) in [
            ("a signature not base64url", { (answer: inout PasskeyAssertionResponse) in answer.signature = "!!" }),
            ("a short authenticator data", { (answer: inout PasskeyAssertionResponse) in answer.authenticatorData = Base64Url.encode([1, 2, 3]) }),
            ("client data not JSON", { (answer: inout PasskeyAssertionResponse) in answer.clientData = Base64Url.encode(Array("{".utf8)) }),
        ] as [(String, (inout PasskeyAssertionResponse) -> Void)] {
            let known = try await Driver.signIn(client, authenticator, userHandle: handle, change: change)
            let unknown = try await Driver.signIn(client, stranger, userHandle: handle, change: change)
            #expect(known.status == .badRequest && unknown.status == .badRequest, "\(what)")
            #expect(known.text == unknown.text, "\(what): \(known.text) / \(unknown.text)")
        }
    }

    @Test func anAnswerSignsInOnceAndNotForARemovedOrDisabledUser() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database) = try await Driver.makeApp(folder)
        let authenticator = try SoftwareAuthenticator(.rs256, signCount: 0)
        let handle = try await registered(authenticator, in: app, database: database)
        let client = TestClient(app)
        let options = try await Driver.signInOptions(client)
        let answer = try authenticator.assert(try Driver.challenge(options, for: .signIn), relyingParty: Driver.relyingParty, userHandle: handle)
        let copy = client.cookies
        #expect(try await client.post("/signin/passkey", form: Driver.fields(answer), headers: Driver.json).status == .ok)
        _ = try await client.signOut()
        for (name, cookie) in copy { client.setCookie(name, cookie.value, path: cookie.path) }
        #expect(try await client.post("/signin/passkey", form: Driver.fields(answer), headers: Driver.json).status == .unauthorized, "replayed")

        // As the users page disables and removes them, in the table the app reads.
        let users = try SqliteUserStore(path: folder.file("users.db"))
        _ = try await users.setDisabled(true, username: "user", keepingOne: "admin")
        #expect(try await Driver.signIn(client, authenticator, userHandle: handle).status == .unauthorized, "disabled")
        _ = try await users.setDisabled(false, username: "user", keepingOne: "admin")
        #expect(try await Driver.signIn(client, authenticator, userHandle: handle).status == .ok, "enabled again")
        _ = try await client.signOut()
        _ = try users.remove(username: "user")
        #expect(try await Driver.signIn(client, authenticator, userHandle: handle).status == .unauthorized, "removed")
    }

    @Test func aVerifiedPasskeyIsTwoFactorsAndAnUnverifiedOneIsOne() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database) = try await Driver.makeApp(folder)
        var authenticator = try SoftwareAuthenticator(.es256)
        let setup = TestClient(app)
        try await setup.signIn("user", "secret123")
        let turnedOn = try await setup.turnOnTwoFactor(password: "secret123") { Totp(secret: Base32.decode($0) ?? []).code(at: Int64(Date().timeIntervalSince1970)) }
        let totp = Totp(secret: try #require(Base32.decode(turnedOn.secret)))
        let code = totp.code(at: Int64(Date().timeIntervalSince1970) + 30)
        #expect(try await Driver.addWithCode(setup, authenticator, code: code).status == .created)
        _ = try await setup.signOut()
        let handle = try #require(try await PasskeyStore(database).userHandle(of: "user"))

        let client = TestClient(app)
        authenticator.signCount = 2
        let present = try await Driver.signIn(client, authenticator, userHandle: handle, flags: 0x01)
        #expect(present.text == #"{"location":"/signin/two-factor"}"#, "a code next")
        #expect(try await client.get("/me").location == "/signin")
        #expect(try await client.get("/signin/two-factor").status == .ok)

        authenticator.signCount = 3
        let verified = try await Driver.signIn(client, authenticator, userHandle: handle)
        #expect(verified.text == #"{"location":"/me"}"#, "no code asked; the page remembered")
        #expect(try await client.get("/me").text == "user")
    }

    @Test func aVerifiedPasskeyMeetsARequiredSecondFactor() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database) = try await Driver.makeApp(folder) { $0.twoFactor.requiredForRoles = ["admin"] }
        var authenticator = try SoftwareAuthenticator(.es256)
        let handle = try await registered(authenticator, in: app, database: database)
        // Made an admin after adding the passkey: now held to the requirement, with no code set up.
        let users = try SqliteUserStore(path: folder.file("users.db"))
        _ = try await users.setRoles(of: "user", to: ["admin"], keepingOne: "admin")
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        #expect(try await client.get("/me").location == "/account/two-factor", "a password alone does not meet it")
        _ = try await client.signOut()
        authenticator.signCount = 2
        #expect(try await Driver.signIn(client, authenticator, userHandle: handle, flags: 0x01).status == .ok)
        #expect(try await client.get("/me").location == "/account/two-factor", "nor a passkey that did not verify the person")
        _ = try await client.signOut()
        authenticator.signCount = 3
        #expect(try await Driver.signIn(client, authenticator, userHandle: handle).status == .ok)
        #expect(try await client.get("/me").text == "user", "a passkey that verified the person does")
        // A password sign-in on the same session does not inherit it.
        try await client.signIn("user", "secret123")
        #expect(try await client.get("/me").location == "/account/two-factor")
    }

    @Test func theSignInPageOffersAPasskeyWhereOneCanSignIn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, _) = try await Driver.makeApp(folder)
        let page = try await TestClient(app).get("/signin")
        #expect(page.text.contains(#"<form id="passkey-sign-in" method="post" action="/signin/passkey" data-passkey="get" data-autofill data-options="/signin/passkey/options">"#))
        #expect(page.text.contains(#"autocomplete="username webauthn""#) && page.text.contains(#"<script src="/account/passkeys.js" defer></script>"#))

        // On an IP address a browser would refuse a passkey: nothing is offered.
        let client = TestClient(app)
        client.defaultHeaders = ["Host": "127.0.0.1"]
        let plain = try await client.get("/signin")
        #expect(!plain.text.contains("passkey") && plain.text.contains(#"autocomplete="username""#))
        #expect(try await client.post("/signin/passkey/options", form: [:], headers: Driver.json).status == .notFound)
        // Each host the app answers for has its own relying party, remembered apart: asked in
        // turns, each host's options name its own id, never one asked for before.
        let other = try TemporaryFolder()
        defer { other.remove() }
        let (named, _) = try await Driver.makeApp(other)
        named.settings.allowedHosts = ["kit.localhost"]
        for (host, id) in [("localhost", "localhost"), ("Kit.localhost", "kit.localhost"), ("127.0.0.1", nil), ("kit.localhost", "kit.localhost"), ("localhost", "localhost")] {
            let client = TestClient(named)
            client.defaultHeaders = ["Host": host]
            #expect(try await client.get("/signin").text.contains(#"id="passkey-sign-in""#) == (id != nil), "\(host)")
            let options = try await client.post("/signin/passkey/options", form: [:], headers: Driver.json)
            #expect(options.status == (id == nil ? .notFound : .ok), "\(host)")
            if let id { #expect(try Driver.object(options)["rpId"] as? String == id, "\(host)") }
        }
        // A host that only looks like an allowed one (KELVIN SIGN for K) is refused before
        // anything reads it (AllowedHosts), so it reaches no relying party at all.
        let lookalike = TestClient(named)
        lookalike.defaultHeaders = ["Host": "\u{212A}it.localhost"]
        #expect(try await lookalike.get("/signin").status == .misdirectedRequest)

        // The built-in page of an app without a layout shows it too.
        let bare = isolatedApp()
        var authentication = Authentication(users: try UserStoreKind.sqlite.make(in: folder))
        authentication.passwordCost = 4
        bare.use(authentication)
        bare.use(Accounts(database: try await Database.sqlite(path: folder.file("bare.db"))))
        let built = try await TestClient(bare).get("/signin")
        #expect(built.text.contains(#"id="passkey-sign-in""#) && built.text.contains(#"autocomplete="username webauthn""#))
        #expect(built.text.contains(#"<script src="/account/passkeys.js" defer></script>"#))
    }
}
