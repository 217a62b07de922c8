import Foundation
import Micro
@testable import MicroAccounts
import MicroAuth
import MicroCore
@testable import MicroPasskeys
import MicroTestSupport
import MicroTesting
import Testing

/// The passkeys' page script, played in tests: it posts what the script posts, with a software
/// authenticator in the browser's place, over an app of a users table (`user`/`secret123`,
/// `ann`/`ann-password`) whose account pages keep their state in a folder's app.db, and where
/// `POST /sso/NAME` signs NAME in as single sign-on does.
struct PasskeyScriptDriver {
    static let relyingParty = PasskeyRelyingParty(origin: "http://localhost")!
    static let json: HttpHeaders = ["Accept": "application/json"]

    /// The app, with `configure` applied to its ``Accounts``, on `clock` when one is given.
    static func makeApp(
        _ folder: TemporaryFolder, log: LogRecorder? = nil, clock: TestClock? = nil, configure: (inout Accounts) -> Void = { _ in }
    ) async throws -> (App, Database) {
        try folder.write("views/layout.mustache", "<main>{{#flashMessages}}<p class=\"flash\">{{message}}</p>{{/flashMessages}}{{{yield}}}</main>")
        let app = isolatedApp(logger: log?.logger ?? .quietForTests) { settings in
            settings.views = folder.file("views")
            if let clock { settings.clock = { clock.now } }
        }
        let users = try #require(try UserStoreKind.sqlite.make(in: folder) as? SqliteUserStore)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann Smith", roles: [])
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        let database = try await Database.sqlite(path: folder.file("app.db"))
        var accounts = Accounts(database: database)
        configure(&accounts)
        app.use(accounts)
        app.get("/me") { request in try request.authenticate().username }
        // A sign-in by single sign-on, as a provider's would end.
        app.post("/sso/:name") { request in
            guard let stored = try users.find(username: request.params["name"] ?? "") else { throw HttpError(.notFound) }
            try await request.signIn(stored.user, credentialStamp: CredentialStamp(stored), via: "test")
            return "signed in"
        }
        return (app, database)
    }

    /// JSON `answer`'s object.
    static func object(_ answer: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
    }

    /// The challenge in `options`, for `purpose`.
    static func challenge(_ options: [String: Any], for purpose: PasskeyChallenge.Purpose) throws -> PasskeyChallenge {
        let text = try #require(options["challenge"] as? String)
        return PasskeyChallenge(bytes: try #require(Base64Url.decode(text)), purpose: purpose, issuedAt: 0)
    }

    // MARK: The account page

    /// The creation options the page's script gets after `password`.
    static func creationOptions(_ client: TestClient, password: String) async throws -> [String: Any] {
        let answer = try await client.post("/account/passkeys/options", form: ["current_password": password], headers: json)
        #expect(answer.status == .ok, "\(answer.text)")
        #expect(answer.headers.first(name: "Cache-Control") == "no-store")
        return try object(answer)
    }

    /// The form the page's script posts for `response`.
    static func fields(_ response: PasskeyRegistrationResponse, name: String) -> KeyValuePairs<String, String> {
        [
            "name": name, "credential_id": response.credentialId, "client_data": response.clientData,
            "authenticator_data": response.authenticatorData, "algorithm": String(response.algorithm),
        ]
    }

    /// Adds `authenticator`'s passkey as the page does: the options after the password, the
    /// dialog's answer posted back.
    static func add(_ client: TestClient, _ authenticator: SoftwareAuthenticator, name: String = "Laptop", password: String = "secret123")
        async throws -> TestResponse
    {
        let options = try await creationOptions(client, password: password)
        let made = try authenticator.register(try challenge(options, for: .registration), relyingParty: relyingParty)
        return try await client.post("/account/passkeys", form: fields(made, name: name), headers: json)
    }

    /// Adds `authenticator`'s passkey for a user with a second factor on: the password and
    /// `code` confirm it.
    static func addWithCode(_ client: TestClient, _ authenticator: SoftwareAuthenticator, code: String) async throws -> TestResponse {
        let answer = try await client.post(
            "/account/passkeys/options", form: ["current_password": "secret123", "code": code], headers: json)
        #expect(answer.status == .ok, "\(answer.text)")
        let made = try authenticator.register(try challenge(try object(answer), for: .registration), relyingParty: relyingParty)
        return try await client.post("/account/passkeys", form: fields(made, name: "Laptop"), headers: json)
    }

    // MARK: The sign-in page

    /// The request options the sign-in page's script gets.
    static func signInOptions(_ client: TestClient) async throws -> [String: Any] {
        let answer = try await client.post("/signin/passkey/options", form: [:], headers: json)
        #expect(answer.status == .ok, "\(answer.text)")
        return try object(answer)
    }

    /// The form the sign-in page's script posts for `response`.
    static func fields(_ response: PasskeyAssertionResponse) -> KeyValuePairs<String, String> {
        [
            "credential_id": response.credentialId, "client_data": response.clientData, "authenticator_data": response.authenticatorData,
            "signature": response.signature, "user_handle": response.userHandle,
        ]
    }

    /// Signs in with `authenticator` as the sign-in page does, its answer changed by `change`;
    /// `userHandle` is the one the passkey was made with (the options' `user.id`).
    static func signIn(
        _ client: TestClient, _ authenticator: SoftwareAuthenticator, userHandle: [UInt8],
        flags: UInt8 = SoftwareAuthenticator.presentAndVerified, change: (inout PasskeyAssertionResponse) -> Void = { _ in }
    ) async throws -> TestResponse {
        let options = try await signInOptions(client)
        var response = try authenticator.assert(
            try challenge(options, for: .signIn), relyingParty: relyingParty, userHandle: userHandle, flags: flags)
        change(&response)
        return try await client.post("/signin/passkey", form: fields(response), headers: json)
    }
}
