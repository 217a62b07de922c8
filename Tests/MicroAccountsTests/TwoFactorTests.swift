import Foundation
import Logging
import Micro
@testable import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
@testable import MicroTwoFactor
import SQLKit
import Testing

/// Two-factor sign-in through the test client: turning it on, signing in with a code or a
/// recovery code, the throttle, replays (two apps over one SQLite file), the data key.
@Suite struct TwoFactorTests {
    /// An app over the users of `folder` (`user`/`secret123`, `Ann`/`ann-password`, admin) with
    /// the account pages' state in `folder`'s app.db.
    func makeApp(
        _ folder: TemporaryFolder, clock: TestClock, environment: Environment = .test, passwordCost: Int = 4, log: LogRecorder? = nil,
        configure: (inout Accounts) -> Void = { _ in }
    ) async throws -> (App, Database) {
        try folder.write("views/layout.mustache", "<main>{{#flashMessages}}<p class=\"flash\">{{message}}</p>{{/flashMessages}}{{{yield}}}</main>")
        let app = isolatedApp(environment: environment, logger: log?.logger ?? .quietForTests) {
            $0.views = folder.file("views")
            $0.clock = { clock.now }
        }
        let users: SqliteUserStore
        if FileManager.default.fileExists(atPath: folder.file("users.db")) {
            users = try SqliteUserStore(path: folder.file("users.db"))
        } else {
            users = try #require(try UserStoreKind.sqlite.make(in: folder) as? SqliteUserStore)
            try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann Smith", roles: ["admin"])
        }
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = passwordCost
        app.use(authentication)
        let database = try await Database.sqlite(path: folder.file("app.db"))
        var accounts = Accounts(database: database)
        accounts.twoFactor.issuer = "Micro Tools"
        configure(&accounts)
        app.use(accounts)
        app.get("/me") { request in try request.authenticate().username }
        return (app, database)
    }

    /// The values of `attribute` in `html`, in order.
    func values(of attribute: String, in html: String) -> [String] {
        html.components(separatedBy: attribute + "=\"").dropFirst().compactMap { $0.split(separator: "\"", maxSplits: 1).first.map(String.init) }
    }

    /// Turns two-factor on for the signed-in `client` (MicroTesting's helper, at the test
    /// clock's time); the secret and the recovery codes.
    func turnOn(_ client: TestClient, password: String, clock: TestClock) async throws -> (totp: Totp, codes: [String]) {
        let setup = try await client.turnOnTwoFactor(password: password) { Totp(secret: Base32.decode($0) ?? []).code(at: now(clock)) }
        return (Totp(secret: try #require(Base32.decode(setup.secret))), setup.recoveryCodes)
    }

    func now(_ clock: TestClock) -> Int64 { Int64(clock.now.timeIntervalSince1970) }

    func events(_ client: TestClient) async throws -> String {
        try await client.get("/account/activity", headers: ["Accept": "application/json"]).text
    }

    @Test func turningItOnShowsTheSecretTheUriAndAQrCodeAndStoresNothingUntilConfirmed() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let (app, database) = try await makeApp(folder, clock: clock)
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        #expect(try await client.get("/account").text.contains("/account/two-factor"))
        let off = try await client.get("/account/two-factor")
        #expect(off.text.contains(#"data-two-factor="off""#) && off.text.contains(#"name="current_password""#))

        let setup = try await client.post("/account/two-factor/setup", form: ["current_password": "secret123"])
        #expect(setup.status == .ok)
        let secret = try #require(values(of: "data-totp-secret", in: setup.text).first)
        let uri = try #require(values(of: "data-otpauth-uri", in: setup.text).first)
        #expect(uri == "otpauth://totp/Micro%20Tools:user?secret=\(secret)&amp;issuer=Micro%20Tools")
        #expect(setup.text.contains("<svg") && setup.text.contains(#"action="/account/two-factor/enable""#))
        // The page shows under the default CSP: no inline style, no script.
        #expect(!setup.text.contains("style=") && !setup.text.contains("<script"))
        #expect(setup.headers.first(name: "Content-Security-Policy")?.contains("style-src 'self'") == true)
        #expect(try await database.sql.select().column("username").from("micro_two_factor").all().isEmpty)

        let totp = Totp(secret: try #require(Base32.decode(secret)))
        let wrong = try await client.post("/account/two-factor/enable", form: ["code": totp.code(at: now(clock) + 300)])
        #expect(wrong.status == .unprocessableEntity)
        #expect(try await client.get("/account/two-factor").text.contains(#"data-two-factor="off""#))

        let enabled = try await client.post("/account/two-factor/enable", form: ["code": totp.code(at: now(clock))])
        #expect(enabled.status == .ok)
        let codes = values(of: "data-recovery-code", in: enabled.text)
        #expect(codes.count == 10 && Set(codes).count == 10)
        #expect(enabled.headers.first(name: "Cache-Control") == "no-store")
        let on = try await client.get("/account/two-factor")
        #expect(on.text.contains(#"data-two-factor="on""#) && on.text.contains("<span data-recovery-codes-left>10</span>"))
        #expect(try await events(client).contains(#""event":"two_factor_enabled""#))
        // A second setup while on is refused.
        #expect(try await client.post("/account/two-factor/setup", form: ["current_password": "secret123"]).status == .unprocessableEntity)
    }

    @Test func theSecretIsSealedAndTheRecoveryCodesAreDigests() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let (app, database) = try await makeApp(folder, clock: clock)
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        let (totp, codes) = try await turnOn(client, password: "secret123", clock: clock)
        let row = try #require(try await database.sql.select().column("*").from("micro_two_factor").first())
        let sealed = try row.decode(column: "sealed_secret", as: String.self)
        let base32 = Base32.encode(totp.secret, padded: false)
        #expect(!sealed.contains(base32) && !sealed.lowercased().contains(base32.lowercased()))
        let stored = try #require(Data(base64Encoded: sealed))
        #expect(stored.range(of: Data(totp.secret)) == nil)
        let digests = try await database.sql.select().column("digest").from("micro_recovery_codes").all().map { try $0.decode(column: "digest", as: String.self) }
        #expect(digests.count == 10)
        for code in codes {
            let plain = code.replacingOccurrences(of: "-", with: "")
            #expect(!digests.contains { $0.contains(plain) || $0.contains(code) })
        }
        // Another key does not open it.
        #expect(DataKey(material: "not the key of this process, 0123456789abcdef").open(sealed, context: TwoFactorService.context(of: "user")) == nil)
    }

    @Test func aWrongPasswordAtSetupIsAFailedSignIn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let (app, _) = try await makeApp(folder, clock: clock)
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        for _ in 0..<5 {
            #expect(try await client.post("/account/two-factor/setup", form: ["current_password": "wrong"]).status == .unprocessableEntity)
        }
        let refused = try await client.post("/account/two-factor/setup", form: ["current_password": "secret123"])
        #expect(refused.status == .tooManyRequests)
        #expect(refused.headers.first(name: "Retry-After") != nil)
    }

    @Test func signingInAsksForTheCodeAndKeepsTheRememberedPage() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let (app, _) = try await makeApp(folder, clock: clock)
        let owner = TestClient(app)
        try await owner.signIn("ann", "ann-password")
        let (totp, _) = try await turnOn(owner, password: "ann-password", clock: clock)
        let enablingCode = totp.code(at: now(clock))

        let client = TestClient(app)
        #expect(try await client.get("/signin/two-factor").location == "/signin")
        #expect(try await client.get("/me").location == "/signin")
        let password = try await client.post("/signin", form: ["username": "ann", "password": "ann-password"])
        #expect(password.status == .seeOther)
        #expect(password.location == "/signin/two-factor")
        // Not signed in yet.
        #expect(try await client.get("/me").location == "/signin")
        let form = try await client.get("/signin/two-factor")
        #expect(form.status == .ok && form.text.contains(#"name="code""#))
        let before = client.cookies["micro.session"]?.value
        // The code that turned it on is spent; a wrong one is refused.
        #expect(try await client.post("/signin/two-factor", form: ["code": enablingCode]).status == .unprocessableEntity)
        #expect(try await client.post("/signin/two-factor", form: ["code": "000000"]).status == .unprocessableEntity)
        #expect(try await client.get("/me").location == "/signin")
        clock.advance(seconds: 30)
        let code = totp.code(at: now(clock))
        let signedIn = try await client.post("/signin/two-factor", form: ["code": code])
        #expect(signedIn.status == .seeOther)
        #expect(signedIn.location == "/me")
        #expect(client.cookies["micro.session"]?.value != before)
        #expect(try await client.get("/account").text.contains("Welcome back Ann Smith."))
        #expect(try await client.get("/me").text == "ann")
        let log = try await events(client)
        #expect(log.contains(#""event":"signed_in""#) && log.contains(#""detail":"two_factor""#))
        #expect(log.contains(#""event":"sign_in_failed""#))
        #expect(!log.contains(code))
        // The same code again, from another browser: refused (replay).
        let other = TestClient(app)
        #expect(try await other.post("/signin", form: ["username": "ann", "password": "ann-password"]).location == "/signin/two-factor")
        let replayed = try await other.post("/signin/two-factor", form: ["code": code])
        #expect(replayed.status == .unprocessableEntity)
        // It was right a moment ago: the refusal says to wait for the next one, not that it is wrong.
        #expect(replayed.text.contains("That code was just used. Wait for the next one your app shows"))
        #expect(!replayed.text.contains("That code is not right"))
        // The step before is spent too (an earlier step than the one used).
        let earlier = try await other.post("/signin/two-factor", form: ["code": totp.code(at: now(clock) - 30)])
        #expect(earlier.status == .unprocessableEntity && earlier.text.contains("That code was just used"))
        // A code that was never right is wrong, as before.
        let wrong = String(format: "%06d", (Int(code)! + 500_000) % 1_000_000)
        let refused = try await other.post("/signin/two-factor", form: ["code": wrong])
        #expect(refused.status == .unprocessableEntity && refused.text.contains("That code is not right"))
    }

    @Test func thePendingStepExpiresFiveMinutesAfterThePassword() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let (app, _) = try await makeApp(folder, clock: clock)
        let owner = TestClient(app)
        try await owner.signIn("user", "secret123")
        let (totp, _) = try await turnOn(owner, password: "secret123", clock: clock)
        let client = TestClient(app)
        #expect(try await client.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/signin/two-factor")
        clock.advance(seconds: 301)
        let late = try await client.post("/signin/two-factor", form: ["code": totp.code(at: now(clock))])
        #expect(late.status == .seeOther)
        #expect(late.location == "/signin")
        #expect(try await client.get("/me").location == "/signin")
        #expect(try await client.get("/signin/two-factor").location == "/signin")
    }

    @Test func wrongCodesCountAgainstTheUserAndThePasswordStepDoesNotResetThem() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let (app, _) = try await makeApp(folder, clock: clock)
        let owner = TestClient(app)
        try await owner.signIn("user", "secret123")
        let (totp, _) = try await turnOn(owner, password: "secret123", clock: clock)
        clock.advance(seconds: 30)
        let client = TestClient(app)
        for _ in 0..<4 {
            // A right password each time: it must not clear the wrong codes before it.
            #expect(try await client.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/signin/two-factor")
            #expect(try await client.post("/signin/two-factor", form: ["code": "123456"]).status == .unprocessableEntity)
        }
        #expect(try await client.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/signin/two-factor")
        #expect(try await client.post("/signin/two-factor", form: ["code": "654321"]).status == .unprocessableEntity)
        // Five failures: the right code is refused too, and so is the password.
        let refused = try await client.post("/signin/two-factor", form: ["code": totp.code(at: now(clock))])
        #expect(refused.status == .tooManyRequests)
        #expect(refused.headers.first(name: "Retry-After") != nil)
        #expect(try await client.post("/signin", form: ["username": "user", "password": "secret123"]).status == .tooManyRequests)
        #expect(try await client.get("/me").location == "/signin")
        // After the window, the right code works and clears the count.
        clock.advance(seconds: 15 * 60)
        #expect(try await client.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/signin/two-factor")
        #expect(try await client.post("/signin/two-factor", form: ["code": totp.code(at: now(clock))]).status == .seeOther)
        #expect(try await client.get("/me").text == "user")
    }

    @Test func aRecoveryCodeWorksOnce() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let (app, _) = try await makeApp(folder, clock: clock)
        let owner = TestClient(app)
        try await owner.signIn("user", "secret123")
        let (_, codes) = try await turnOn(owner, password: "secret123", clock: clock)
        let client = TestClient(app)
        #expect(try await client.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/signin/two-factor")
        // Typed in capitals, with spaces: still the code.
        let typed = codes[3].uppercased().replacingOccurrences(of: "-", with: " ")
        #expect(try await client.post("/signin/two-factor", form: ["code": typed]).status == .seeOther)
        #expect(try await client.get("/me").text == "user")
        let log = try await events(client)
        #expect(log.contains(#""detail":"recovery_code""#) && log.contains(#""event":"recovery_code_used""#))
        #expect(try await client.get("/account/two-factor").text.contains("<span data-recovery-codes-left>9</span>"))
        let again = TestClient(app)
        #expect(try await again.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/signin/two-factor")
        #expect(try await again.post("/signin/two-factor", form: ["code": codes[3]]).status == .unprocessableEntity)
        #expect(try await again.post("/signin/two-factor", form: ["code": codes[4]]).status == .seeOther)
    }

    @Test func httpBasicIsRefusedForAUserWithASecondFactorAndNothingIsCached() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let (app, _) = try await makeApp(folder, clock: clock)
        let script = TestClient(app)
        let basic: HttpHeaders = ["Accept": "application/json", "Authorization": "Basic " + Data("user:secret123".utf8).base64EncodedString()]
        // Before: Basic works (and is cached).
        #expect(try await script.get("/me", headers: basic).text == "user")
        let owner = TestClient(app)
        try await owner.signIn("user", "secret123")
        _ = try await turnOn(owner, password: "secret123", clock: clock)
        for _ in 0..<2 {
            let refused = try await script.get("/me", headers: basic)
            #expect(refused.status == .unauthorized)
            #expect(refused.text.contains("API token"))
            #expect(refused.headers.first(name: "Content-Type")?.contains("json") == true)
        }
        #expect(script.cookies["micro.session"] == nil)
    }

    @Test func turningItOffNeedsThePasswordAndACodeAndNewRecoveryCodesVoidTheOld() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let (app, _) = try await makeApp(folder, clock: clock)
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        let (totp, old) = try await turnOn(client, password: "secret123", clock: clock)
        clock.advance(seconds: 30)
        #expect(try await client.post("/account/two-factor/recovery-codes", form: ["code": "000000"]).status == .unprocessableEntity)
        let renewed = try await client.post("/account/two-factor/recovery-codes", form: ["code": totp.code(at: now(clock))])
        #expect(renewed.status == .ok)
        let new = values(of: "data-recovery-code", in: renewed.text)
        #expect(new.count == 10 && Set(new).isDisjoint(with: old))
        clock.advance(seconds: 30)
        // Both are needed.
        #expect(try await client.post("/account/two-factor/disable", form: ["current_password": "wrong", "code": totp.code(at: now(clock))]).status == .unprocessableEntity)
        #expect(try await client.post("/account/two-factor/disable", form: ["current_password": "secret123", "code": old[0]]).status == .unprocessableEntity)
        #expect(try await client.get("/account/two-factor").text.contains(#"data-two-factor="on""#))
        let off = try await client.post("/account/two-factor/disable", form: ["current_password": "secret123", "code": new[0]])
        #expect(off.status == .seeOther)
        #expect(try await client.get("/account/two-factor").text.contains(#"data-two-factor="off""#))
        let log = try await events(client)
        for event in ["two_factor_enabled", "recovery_codes_regenerated", "recovery_code_used", "two_factor_disabled"] {
            #expect(log.contains("\"event\":\"\(event)\""), "\(event)")
        }
        // Off: the password alone signs in again.
        let other = TestClient(app)
        #expect(try await other.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/")
    }

    @Test func aCodeUsedOnOneInstanceIsRefusedOnAnotherSharingTheFile() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let (first, _) = try await makeApp(folder, clock: clock)
        let (second, _) = try await makeApp(folder, clock: clock)
        let owner = TestClient(first)
        try await owner.signIn("user", "secret123")
        let (totp, _) = try await turnOn(owner, password: "secret123", clock: clock)
        clock.advance(seconds: 30)
        let code = totp.code(at: now(clock))
        let one = TestClient(first)
        let two = TestClient(second)
        #expect(try await one.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/signin/two-factor")
        #expect(try await two.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/signin/two-factor")
        #expect(try await one.post("/signin/two-factor", form: ["code": code]).status == .seeOther)
        #expect(try await two.post("/signin/two-factor", form: ["code": code]).status == .unprocessableEntity)
        #expect(try await two.get("/me").location == "/signin")
    }

    @Test func oneCodeSentByManyBrowsersAtOnceSignsInOnlyOne() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let (app, _) = try await makeApp(folder, clock: clock)
        let owner = TestClient(app)
        try await owner.signIn("user", "secret123")
        let (totp, _) = try await turnOn(owner, password: "secret123", clock: clock)
        clock.advance(seconds: 30)
        let code = totp.code(at: now(clock))
        // Four browsers past the password step, each its own session cookie.
        var cookies: [String] = []
        for _ in 0..<4 {
            let client = TestClient(app)
            #expect(try await client.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/signin/two-factor")
            cookies.append(try #require(client.cookies["micro.session"]?.value))
        }
        let statuses = try await withThrowingTaskGroup(of: HttpStatus.self) { group in
            for cookie in cookies {
                group.addTask {
                    let client = TestClient(app)
                    client.setCookie("micro.session", cookie)
                    return try await client.post("/signin/two-factor", form: ["code": code]).status
                }
            }
            return try await group.reduce(into: [HttpStatus]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == .seeOther }.count == 1)
        #expect(statuses.filter { $0 == .unprocessableEntity }.count == 3)
    }

    @Test func hostileCodesAreRefusedWithA422() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let (app, _) = try await makeApp(folder, clock: clock)
        let owner = TestClient(app)
        try await owner.signIn("user", "secret123")
        _ = try await turnOn(owner, password: "secret123", clock: clock)
        let client = TestClient(app)
        #expect(try await client.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/signin/two-factor")
        // Four wrong codes: the fifth attempt (below) may meet the throttle, a 4xx too.
        for code in [String(repeating: "7", count: 100_000), "12345\u{0}6", "１２３４５６", "' OR 1=1 --🔑"] {
            let answer = try await client.post("/signin/two-factor", form: ["code": code])
            #expect(answer.status == .unprocessableEntity, "\(code.prefix(12))")
            #expect(!answer.text.contains(String(code.prefix(12))))
        }
        // Invalid UTF-8 in the form: refused, never a 500.
        let raw = try await client.request(
            .POST, "/signin/two-factor", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array("code=%FF%FE".utf8))
        #expect(raw.status.code >= 400 && raw.status.code < 500)
        #expect(try await client.get("/me").location == "/signin")
    }

    @Test func productionRefusesToStartWithoutTheDataKeyOnceAUserHasItOn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        // Production with no user on: it starts (two-factor cannot be turned on, and says why).
        let (empty, _) = try await makeApp(folder, clock: clock, environment: .production)
        #expect(try await TestClient(empty).get("/signin").status == .ok)
        let (test, _) = try await makeApp(folder, clock: clock)
        let owner = TestClient(test)
        try await owner.signIn("user", "secret123")
        _ = try await turnOn(owner, password: "secret123", clock: clock)
        let (production, _) = try await makeApp(folder, clock: clock, environment: .production)
        do {
            _ = try await TestClient(production).get("/signin")
            Issue.record("The app started without MICRO_DATA_KEY.")
        } catch let error as ConfigurationError {
            #expect(error.message.contains("MICRO_DATA_KEY"))
        }
        // A key too short is refused at start-up, naming the variable.
        let (short, _) = try await makeApp(folder, clock: clock, environment: .production)
        short.settings.variables["MICRO_DATA_KEY"] = "too short"
        do {
            _ = try await TestClient(short).get("/signin")
            Issue.record("The app started with a short MICRO_DATA_KEY.")
        } catch let error as ConfigurationError {
            #expect(error.message.contains("MICRO_DATA_KEY"))
        }
    }

    @Test func withCredentialsYamlThePageSaysItNeedsAUsersTable() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.write("views/layout.mustache", "{{{yield}}}")
        let app = isolatedApp { $0.views = folder.file("views") }
        var authentication = Authentication(users: try UserStoreKind.yaml.make(in: folder))
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        app.use(Accounts())
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        let page = try await client.get("/account/two-factor")
        #expect(page.status == .ok)
        #expect(page.text.contains("credentials.yml") && page.text.contains("users table"))
        #expect(!page.text.contains("<form"))
        #expect(try await client.post("/account/two-factor/setup", form: ["current_password": "secret123"]).status == .forbidden)
    }

    @Test func anAppCanRequireItForAdmins() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let (app, database) = try await makeApp(folder, clock: clock) { $0.twoFactor.requiredForRoles = ["admin"] }
        let admin = TestClient(app)
        try await admin.signIn("ann", "ann-password")
        #expect(try await admin.get("/me").location == "/account/two-factor")
        let page = try await admin.get("/account/two-factor")
        #expect(page.status == .ok && page.text.contains("needs a second factor"))
        #expect(try await admin.get("/me", headers: ["Accept": "application/json"]).status == .forbidden)
        // Nothing the password alone could turn into a credential that needs no code: not the
        // tokens page, not HTTP Basic.
        #expect(try await admin.get("/account/tokens").location == "/account/two-factor")
        #expect(try await admin.get("/account").status == .ok)
        // The users page, held too: a change posted without the password shows no list of
        // users, whatever runs first, the proof's filter or the requirement's.
        #expect(try await admin.get("/admin/users").location == "/account/two-factor")
        let unproven = try await admin.post("/admin/users/add", form: ["new_username": "eve", "password": "a fine password 1"])
        #expect(unproven.location == "/account/two-factor" || unproven.status == .unprocessableEntity, "\(unproven.status)")
        #expect(!unproven.text.contains("Ann Smith") && !unproven.text.contains("new_username"), "\(unproven.text)")
        let basic: HttpHeaders = ["Authorization": "Basic " + Data("ann:ann-password".utf8).base64EncodedString(), "Accept": "application/json"]
        #expect(try await TestClient(app).get("/me", headers: basic).status == .forbidden)
        let user = TestClient(app)
        try await user.signIn("user", "secret123")
        #expect(try await user.get("/me").text == "user")
        // Sign-out stays reachable.
        let other = TestClient(app)
        try await other.signIn("ann", "ann-password")
        let signedOut = try await other.post("/signout", form: [:])
        #expect(signedOut.status == .seeOther && signedOut.location == "/")
        _ = try await turnOn(admin, password: "ann-password", clock: clock)
        #expect(try await admin.get("/me").text == "ann")
        // Reset from outside (the command): within a few minutes the session is held to it again.
        #expect(try await TwoFactorReset.reset("ann", in: database))
        clock.advance(seconds: Double(TwoFactorRequirement.confirmedLifetime) + 1)
        #expect(try await admin.get("/me").location == "/account/two-factor")
    }

    @Test func anAdminTurnsItOffFromTheUsersPage() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let (app, database) = try await makeApp(folder, clock: clock)
        defer { Task { await database.shutdown() } }
        let owner = TestClient(app)
        try await owner.signIn("user", "secret123")
        _ = try await turnOn(owner, password: "secret123", clock: clock)
        try await owner.signOut()

        let admin = TestClient(app)
        try await admin.signIn("ann", "ann-password")
        try await admin.confirmAdmin("ann-password")
        let listed = try await admin.get("/admin/users")
        #expect(listed.text.contains("data-user=\"user\""))
        #expect(listed.text.contains("data-two-factor"))
        // Nobody but an admin (the page's other forms show the 403 for a user without the role).
        #expect(try await TestClient(app).post("/admin/users/two-factor-off", form: ["username": "user"]).location == "/signin")
        #expect(try await admin.post("/admin/users/two-factor-off", form: ["username": "user"]).status == .seeOther)
        #expect(!(try await admin.get("/admin/users").text.contains("data-two-factor")))
        // The password alone signs them in again.
        let back = try await TestClient(app).post("/signin", form: ["username": "user", "password": "secret123"])
        #expect(back.location == "/")
        let audit = try await admin.get("/admin/audit?user=user", headers: ["Accept": "application/json"]).text
        #expect(audit.contains("\"event\":\"two_factor_disabled\""))
        #expect(audit.contains("by ann"))
        // Off already: said so, nothing recorded.
        let again = try await admin.post("/admin/users/two-factor-off", form: ["username": "user"])
        #expect(again.status == .unprocessableEntity)
        #expect(again.text.contains("does not have two-factor sign-in on"))
    }

    @Test func aPasswordReHashedAtTheFirstStepDoesNotEndTheSecond() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let (first, database) = try await makeApp(folder, clock: clock)
        let owner = TestClient(first)
        try await owner.signIn("user", "secret123")
        let (totp, _) = try await turnOn(owner, password: "secret123", clock: clock)
        await database.shutdown()
        // The same users with another bcrypt cost: the password step re-hashes the password.
        let (second, again) = try await makeApp(folder, clock: clock, passwordCost: 5)
        defer { Task { await again.shutdown() } }
        let client = TestClient(second)
        #expect(try await client.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/signin/two-factor")
        clock.advance(seconds: 30)
        let done = try await client.post("/signin/two-factor", form: ["code": totp.code(at: now(clock))])
        #expect(done.status == .seeOther && done.location == "/")
        #expect(try await client.get("/me").text == "user")
        let users = try SqliteUserStore(path: folder.file("users.db"))
        #expect(try users.find(username: "user")?.passwordHash.hasPrefix("$2b$05$") == true)
    }

    @Test func anOldCookieWithASetupCannotReplaceASecondFactorThatIsOn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let (app, database) = try await makeApp(folder, clock: clock)
        defer { Task { await database.shutdown() } }
        let owner = TestClient(app)
        try await owner.signIn("user", "secret123")
        let setup = try await owner.post("/account/two-factor/setup", form: ["current_password": "secret123"])
        let secret = try #require(values(of: "data-totp-secret", in: setup.text).first.flatMap(Base32.decode))
        // A copy of the cookie as it is now, holding the setup.
        let copy = TestClient(app)
        for (name, cookie) in owner.cookies { copy.setCookie(name, cookie.value) }
        let totp = Totp(secret: secret)
        #expect(try await owner.post("/account/two-factor/enable", form: ["code": totp.code(at: now(clock))]).status == .ok)
        clock.advance(seconds: 30)
        let replayed = try await copy.post("/account/two-factor/enable", form: ["code": totp.code(at: now(clock))])
        #expect(replayed.status == .conflict)
        #expect(replayed.text.contains("already on"))
    }
}
