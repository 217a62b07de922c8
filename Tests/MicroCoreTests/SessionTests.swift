import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

private struct Prefs: Codable, Equatable {
    var zone: String
    var size: Int
}

/// An app whose routes read and change the session, on a clock the test moves.
private func sessionApp(
    _ kind: SessionStoreKind, clock: TestClock = TestClock(), environment: Environment = .test,
    configure: (inout Settings) -> Void = { _ in }
) -> App {
    let app = isolatedApp(environment: environment) { settings in
        settings.clock = { clock.now }
        settings.sessions.store = kind.makeStore()
        configure(&settings)
    }
    app.post("/set") { request in
        request.session[request.params["key"]!] = request.params["value"]!
        return "set"
    }
    app.get("/get") { request in request.session[request.params["key"]!] ?? "none" }
    app.post("/prefs") { request in
        try request.session.set("prefs", Prefs(zone: request.params["zone"]!, size: Int(request.params["size"]!)!))
        return "saved"
    }
    app.get("/prefs") { request in
        request.session.get("prefs", as: Prefs.self).map { "\($0.zone) \($0.size)" } ?? "none"
    }
    app.post("/remove") { request in
        request.session.remove(request.params["key"]!)
        return "removed"
    }
    app.post("/clear") { request in
        request.session.clear()
        return "cleared"
    }
    app.get("/id") { request in request.session.id }
    app.post("/regenerate") { request in
        request.session.regenerate()
        return request.session.id
    }
    app.get("/plain") { _ in "no session here" }
    return app
}

@Suite struct SessionTests {
    // MARK: Values

    @Test(arguments: SessionStoreKind.allCases)
    func stringValuesPersistAcrossRequests(kind: SessionStoreKind) async throws {
        let app = sessionApp(kind)
        let client = TestClient(app)
        #expect(try await client.get("/get?key=theme").text == "none")
        #expect(try await client.post("/set", form: ["key": "theme", "value": "dark"]).status == .ok)
        #expect(try await client.get("/get?key=theme").text == "dark")
        #expect(try await client.get("/get?key=theme").text == "dark")
        // Another client has a session of its own.
        #expect(try await TestClient(app).get("/get?key=theme").text == "none")
    }

    @Test(arguments: SessionStoreKind.allCases)
    func aStringThatBeginsOrEndsWithAJoiningMarkKeepsIt(kind: SessionStoreKind) async throws {
        // U+0301 joins the opening quote of the stored JSON into one Character, U+0600 (an
        // Arabic sign that prepends) the closing one: reading by Characters lost them.
        let client = TestClient(sessionApp(kind))
        for value in ["\u{301}admin", "admin\u{600}"] {
            #expect(try await client.post("/set", form: ["key": "who", "value": value]).status == .ok)
            #expect(Array(try await client.get("/get?key=who").text.utf8) == Array(value.utf8))
        }
    }

    @Test(arguments: SessionStoreKind.allCases)
    func typedCodableValuesPersistAcrossRequests(kind: SessionStoreKind) async throws {
        let client = TestClient(sessionApp(kind))
        #expect(try await client.post("/prefs", form: ["zone": "Europe/Paris", "size": "12"]).status == .ok)
        #expect(try await client.get("/prefs").text == "Europe/Paris 12")
        // A value of another type reads as absent.
        #expect(try await client.get("/get?key=prefs").text == "none")
    }

    @Test func aValueReadAgainAfterAChangeIsTheNewOne() async throws {
        let app = sessionApp(.cookie)
        app.post("/reread") { request in
            let before = request.session.get("prefs", as: Prefs.self)
            try request.session.set("prefs", Prefs(zone: "UTC", size: 9))
            let after = request.session.get("prefs", as: Prefs.self)
            request.session.remove("prefs")
            let gone = request.session.get("prefs", as: Prefs.self)
            return "\(before?.zone ?? "none") \(after?.zone ?? "none") \(gone?.zone ?? "none")"
        }
        let client = TestClient(app)
        _ = try await client.post("/prefs", form: ["zone": "Europe/Paris", "size": "12"])
        #expect(try await client.post("/reread", form: [:]).text == "Europe/Paris UTC none")
    }

    @Test func aValueChangedToALookalikeInTheRequestReadsAsTheLookalike() async throws {
        // The request's decoded values are matched to the JSON byte for byte: "k\u{E5}re" and
        // "ka\u{30A}re" are equal Strings, but not the same value.
        let app = sessionApp(.cookie)
        app.post("/lookalike") { request in
            try request.session.set("prefs", Prefs(zone: "k\u{E5}re", size: 1))
            _ = request.session.get("prefs", as: Prefs.self)
            try request.session.set("prefs", Prefs(zone: "ka\u{30A}re", size: 1))
            return request.session.get("prefs", as: Prefs.self)?.zone ?? "none"
        }
        let response = try await TestClient(app).post("/lookalike", form: [:])
        #expect(Array(response.text.utf8) == Array("ka\u{30A}re".utf8))
    }

    @Test(arguments: SessionStoreKind.allCases)
    func removeAndClearForgetValues(kind: SessionStoreKind) async throws {
        let client = TestClient(sessionApp(kind))
        _ = try await client.post("/set", form: ["key": "a", "value": "1"])
        _ = try await client.post("/set", form: ["key": "b", "value": "2"])
        _ = try await client.post("/remove", form: ["key": "a"])
        #expect(try await client.get("/get?key=a").text == "none")
        #expect(try await client.get("/get?key=b").text == "2")

        let cleared = try await client.post("/clear", form: [:])
        #expect(cleared.status == .ok)
        // An emptied session deletes its cookie.
        #expect(cleared.cookieAttributes().contains("Max-Age=0"))
        #expect(client.cookies[sessionCookie] == nil)
        #expect(try await client.get("/get?key=b").text == "none")
    }

    @Test(arguments: SessionStoreKind.allCases)
    func cookieIsWrittenOnlyWhenTheSessionChanged(kind: SessionStoreKind) async throws {
        let client = TestClient(sessionApp(kind))
        // A new session that nobody wrote to sets no cookie.
        let untouched = try await client.get("/get?key=x")
        #expect(untouched.setCookieHeader() == nil)
        #expect(try await client.get("/plain").setCookieHeader() == nil)

        let write = try await client.post("/set", form: ["key": "x", "value": "1"])
        #expect(write.setCookieHeader() != nil)
        let read = try await client.get("/get?key=x")
        #expect(read.text == "1")
        #expect(read.setCookieHeader() == nil)
        // Setting the value it already has is no change.
        let same = try await client.post("/set", form: ["key": "x", "value": "1"])
        #expect(same.setCookieHeader() == nil)
        let changed = try await client.post("/set", form: ["key": "x", "value": "2"])
        #expect(changed.setCookieHeader() != nil)
        // Nor for a Codable value, whose JSON has its keys in one order.
        #expect(try await client.post("/prefs", form: ["zone": "UTC", "size": "1"]).setCookieHeader() != nil)
        for _ in 0..<10 {
            #expect(try await client.post("/prefs", form: ["zone": "UTC", "size": "1"]).setCookieHeader() == nil)
        }
    }

    // MARK: Cookie attributes

    @Test(arguments: SessionStoreKind.allCases)
    func cookieIsHttpOnlyLaxAndForTheWholeSite(kind: SessionStoreKind) async throws {
        let response = try await TestClient(sessionApp(kind)).post("/set", form: ["key": "a", "value": "1"])
        let attributes = response.cookieAttributes()
        #expect(attributes.contains("HttpOnly"))
        #expect(attributes.contains("SameSite=Lax"))
        #expect(attributes.contains("Path=/"))
        #expect(!attributes.contains("Secure"))
    }

    @Test(arguments: SessionStoreKind.allCases, [Environment.development, .test, .production])
    func cookieIsSecureInProductionByDefault(kind: SessionStoreKind, environment: Environment) async throws {
        let response = try await TestClient(sessionApp(kind, environment: environment)).post("/set", form: ["key": "a", "value": "1"])
        #expect(response.setCookieHeader() != nil)
        #expect(response.cookieAttributes().contains("Secure") == (environment == .production))
    }

    @Test(arguments: SessionStoreKind.allCases)
    func secureCookieSettingWins(kind: SessionStoreKind) async throws {
        let secure = sessionApp(kind) { $0.sessions.secureCookie = true }
        #expect(try await TestClient(secure).post("/set", form: ["key": "a", "value": "1"]).cookieAttributes().contains("Secure"))
        let plain = sessionApp(kind, environment: .production) { $0.sessions.secureCookie = false }
        let response = try await TestClient(plain).post("/set", form: ["key": "a", "value": "1"])
        #expect(response.setCookieHeader() != nil)
        #expect(!response.cookieAttributes().contains("Secure"))
    }

    // MARK: Confidentiality and integrity

    @Test(arguments: SessionStoreKind.allCases)
    func cookieDoesNotShowTheSessionsValues(kind: SessionStoreKind) async throws {
        let client = TestClient(sessionApp(kind))
        let secret = "plaintext-marker-4217"
        _ = try await client.post("/set", form: ["key": "card", "value": secret])
        let value = try #require(client.cookies[sessionCookie]?.value)
        #expect(!value.contains(secret))
        #expect(!value.contains("card"))
        for decoded in [Data(base64Encoded: value), Data(base64Encoded: base64(fromUrl: value))].compactMap({ $0 }) {
            #expect(!String(decoding: decoded, as: UTF8.self).contains(secret))
        }
        #expect(try await client.get("/get?key=card").text == secret)
    }

    /// Every one-character change of the cookie, one at a time. The cookie is chosen so that its
    /// last base64url character carries spare bits, which a lenient decoder would ignore.
    @Test(arguments: SessionStoreKind.allCases)
    func changingAnyCharacterOfTheCookieLosesTheSession(kind: SessionStoreKind) async throws {
        let app = sessionApp(kind)
        var chosen: (value: String, cookie: [Character])?
        for value in ["v", "vv", "vvv", "vvvv"] {
            let owner = TestClient(app)
            _ = try await owner.post("/set", form: ["key": "who", "value": value])
            let cookie = try #require(owner.cookies[sessionCookie]?.value)
            #expect(try await owner.get("/get?key=who").text == value)
            if cookie.count % 4 != 0 {
                chosen = (value, Array(cookie))
                break
            }
        }
        let (value, cookie) = try #require(chosen, "no cookie length with spare bits")

        let forger = TestClient(app)
        forger.setCookie(sessionCookie, String(cookie))
        #expect(try await forger.get("/get?key=who").text == value)
        var accepted: [Int] = []
        for index in cookie.indices {
            var forged = cookie
            forged[index] = flipped(forged[index])
            forger.setCookie(sessionCookie, String(forged))
            let response = try await forger.get("/get?key=who")
            #expect(response.status == .ok)
            if response.text != "none" { accepted.append(index) }
        }
        #expect(accepted.isEmpty, "cookie of \(cookie.count) characters accepted after changing the character at \(accepted)")
    }

    @Test(arguments: SessionStoreKind.allCases)
    func truncatedGarbledEmptyOrOversizedCookiesAreNoSession(kind: SessionStoreKind) async throws {
        let app = sessionApp(kind)
        let owner = TestClient(app)
        _ = try await owner.post("/set", form: ["key": "who", "value": "ann"])
        let cookie = try #require(owner.cookies[sessionCookie]?.value)
        let values = [
            String(cookie.dropLast()),
            String(cookie.prefix(cookie.count / 2)),
            String(cookie.dropFirst()),
            "",
            "garbage",
            "not base64!*",
            "\"quoted\"",
            String(repeating: "A", count: 10_240),
            String(repeating: cookie, count: 10_240 / cookie.count + 1),
        ]
        for value in values {
            let client = TestClient(app)
            client.setCookie(sessionCookie, value)
            let response = try await client.get("/get?key=who")
            #expect(response.status == .ok, "cookie of \(value.count) characters")
            #expect(response.text == "none", "cookie of \(value.count) characters")
            // Still usable: the client gets a new session when it writes.
            #expect(try await client.post("/set", form: ["key": "who", "value": "bob"]).status == .ok)
            #expect(try await client.get("/get?key=who").text == "bob")
        }
        #expect(try await owner.get("/get?key=who").text == "ann")
    }

    @Test func cookieFromAnotherSecretIsNoSession() async throws {
        let first = sessionApp(.cookie) { $0.sessions.secret = String(repeating: "a", count: 32) }
        let second = sessionApp(.cookie) { $0.sessions.secret = String(repeating: "b", count: 32) }
        let client = TestClient(first)
        _ = try await client.post("/set", form: ["key": "who", "value": "ann"])
        let other = TestClient(second)
        other.setCookie(sessionCookie, try #require(client.cookies[sessionCookie]?.value))
        let response = try await other.get("/get?key=who")
        #expect(response.status == .ok)
        #expect(response.text == "none")
    }

    @Test func cookieValueCannotBeMovedToAnotherCookieName() async throws {
        let secret = String(repeating: "k", count: 32)
        let first = sessionApp(.cookie) {
            $0.sessions.secret = secret
            $0.sessions.cookieName = "one"
        }
        let second = sessionApp(.cookie) {
            $0.sessions.secret = secret
            $0.sessions.cookieName = "two"
        }
        let client = TestClient(first)
        _ = try await client.post("/set", form: ["key": "who", "value": "ann"])
        let value = try #require(client.cookies["one"]?.value)
        let other = TestClient(second)
        other.setCookie("two", value)
        #expect(try await other.get("/get?key=who").text == "none")
        // The same value under its own name is read.
        let same = TestClient(first)
        same.setCookie("one", value)
        #expect(try await same.get("/get?key=who").text == "ann")
    }

    // MARK: Expiry

    @Test(arguments: SessionStoreKind.allCases)
    func idleSessionEndsAfterTenMinutes(kind: SessionStoreKind) async throws {
        let clock = TestClock()
        let app = sessionApp(kind, clock: clock)
        let client = TestClient(app)
        _ = try await client.post("/set", form: ["key": "who", "value": "ann"])
        clock.advance(seconds: 599)
        #expect(try await client.get("/get?key=who").text == "ann")

        let other = TestClient(app)
        _ = try await other.post("/set", form: ["key": "who", "value": "bob"])
        clock.advance(seconds: 601)
        let expired = try await other.get("/get?key=who")
        #expect(expired.status == .ok)
        #expect(expired.text == "none")
    }

    @Test(arguments: SessionStoreKind.allCases)
    func aCookieReadBeforeStillExpires(kind: SessionStoreKind) async throws {
        // The cookie store keeps the sessions of cookies it opened; their times are still
        // checked on every request.
        let clock = TestClock()
        let client = TestClient(sessionApp(kind, clock: clock))
        _ = try await client.post("/set", form: ["key": "who", "value": "ann"])
        clock.advance(seconds: 30)
        let read = try await client.get("/get?key=who")
        #expect(read.text == "ann")
        #expect(read.setCookieHeader() == nil)  // not renewed: the next request sends the same cookie
        clock.advance(seconds: 571)
        #expect(try await client.get("/get?key=who").text == "none")
    }

    @Test(arguments: SessionStoreKind.allCases)
    func activeSessionStaysAliveAndItsCookieIsRenewed(kind: SessionStoreKind) async throws {
        let clock = TestClock()
        let client = TestClient(sessionApp(kind, clock: clock))
        _ = try await client.post("/set", form: ["key": "who", "value": "ann"])
        for minute in stride(from: 5, through: 45, by: 5) {
            clock.advance(seconds: 300)
            let response = try await client.get("/get?key=who")
            #expect(response.text == "ann", "after \(minute) minutes")
            #expect(response.setCookieHeader() != nil, "renewed after \(minute) minutes")
        }
    }

    @Test(arguments: SessionStoreKind.allCases)
    func aSessionReadUnchangedIsResealedOnlyOnceItsRenewalIsDue(kind: SessionStoreKind) async throws {
        // The cookie is rewritten when the values change or the idle window's renewal is due:
        // a minute after it was last written (a tenth of the idle timeout when that is
        // shorter). The window then counts from the renewal, so an active session never ends
        // more than that minute early.
        let clock = TestClock()
        let client = TestClient(sessionApp(kind, clock: clock))
        _ = try await client.post("/set", form: ["key": "who", "value": "ann"])
        clock.advance(seconds: 59)
        let early = try await client.get("/get?key=who")
        #expect(early.text == "ann")
        #expect(early.setCookieHeader() == nil)
        clock.advance(seconds: 1)  // 60 s after the cookie was written
        let due = try await client.get("/get?key=who")
        #expect(due.text == "ann")
        #expect(due.setCookieHeader() != nil)
        clock.advance(seconds: 30)
        #expect(try await client.get("/get?key=who").setCookieHeader() == nil)
        clock.advance(seconds: 569)  // 599 s after the renewal, 659 s after the first write
        #expect(try await client.get("/get?key=who").text == "ann")
    }

    @Test(arguments: SessionStoreKind.allCases)
    func aShortIdleTimeoutIsRenewedAfterATenthOfIt(kind: SessionStoreKind) async throws {
        let clock = TestClock()
        let client = TestClient(sessionApp(kind, clock: clock) { $0.sessions.idleTimeout = .seconds(30) })
        _ = try await client.post("/set", form: ["key": "who", "value": "ann"])
        clock.advance(seconds: 2)
        #expect(try await client.get("/get?key=who").setCookieHeader() == nil)
        clock.advance(seconds: 1)
        #expect(try await client.get("/get?key=who").setCookieHeader() != nil)
        for _ in 1...10 {  // active every 29 s: the window keeps sliding
            clock.advance(seconds: 29)
            #expect(try await client.get("/get?key=who").text == "ann")
        }
        clock.advance(seconds: 30)
        #expect(try await client.get("/get?key=who").text == "none")
    }

    @Test(arguments: SessionStoreKind.allCases)
    func absoluteLifetimeEndsEvenAnActiveSession(kind: SessionStoreKind) async throws {
        let clock = TestClock()
        let client = TestClient(sessionApp(kind, clock: clock) { $0.sessions.absoluteLifetime = .seconds(3600) })
        _ = try await client.post("/set", form: ["key": "who", "value": "ann"])
        for _ in 1...11 {
            clock.advance(seconds: 300)
            #expect(try await client.get("/get?key=who").text == "ann")
        }
        clock.advance(seconds: 300)  // 60 minutes after it began
        #expect(try await client.get("/get?key=who").text == "none")
    }

    @Test(arguments: SessionStoreKind.allCases)
    func defaultAbsoluteLifetimeIsEightHours(kind: SessionStoreKind) async throws {
        let clock = TestClock()
        let client = TestClient(sessionApp(kind, clock: clock))
        _ = try await client.post("/set", form: ["key": "who", "value": "ann"])
        for _ in 1...53 {  // 7 h 57 min, a request every 9 minutes
            clock.advance(seconds: 540)
            #expect(try await client.get("/get?key=who").text == "ann")
        }
        clock.advance(seconds: 180)  // 8 hours after it began
        #expect(try await client.get("/get?key=who").text == "none")
    }

    // MARK: Regeneration

    @Test(arguments: SessionStoreKind.allCases)
    func regenerateGivesANewIdAndKeepsTheValues(kind: SessionStoreKind) async throws {
        let app = sessionApp(kind)
        let client = TestClient(app)
        _ = try await client.post("/set", form: ["key": "who", "value": "ann"])
        let before = try await client.get("/id").text
        let oldCookie = try #require(client.cookies[sessionCookie]?.value)

        let regenerated = try await client.post("/regenerate", form: [:])
        #expect(regenerated.setCookieHeader() != nil)
        let after = try await client.get("/id").text
        #expect(after == regenerated.text)
        #expect(after != before)
        #expect(try await client.get("/get?key=who").text == "ann")
        #expect(client.cookies[sessionCookie]?.value != oldCookie)

        if kind == .memory {
            // The old session was destroyed: whoever kept its cookie has nothing.
            let attacker = TestClient(app)
            attacker.setCookie(sessionCookie, oldCookie)
            #expect(try await attacker.get("/get?key=who").text == "none")
            #expect(try await attacker.get("/id").text != before)
        }
    }

    // MARK: Secrets

    @Test func productionWithoutSecretRefusesToStart() async throws {
        let app = sessionApp(.cookie, environment: .production) { $0.sessions.secret = nil }
        let error = try #require(await startFailure(app))
        #expect(error.message.contains("MICRO_SESSION_SECRET"))
        await #expect(throws: ConfigurationError.self) { try await TestClient(app).get("/plain") }
    }

    @Test(arguments: [Environment.production, .development, .test])
    func shortSecretIsRefused(environment: Environment) async throws {
        let app = sessionApp(.cookie, environment: environment) { $0.sessions.secret = String(repeating: "x", count: 31) }
        let error = try #require(await startFailure(app))
        #expect(error.message.contains("31 bytes"))
        #expect(error.message.contains("at least 32"))
    }

    @Test func productionWithASecretFromTheEnvironmentServes() async throws {
        var settings = try Settings.fromProcess(["MICRO_ENV": "production", "MICRO_SESSION_SECRET": "5f0c9e2a7b1d4863a9e0f7c2b6d1358e4a7c0f9b2e6d1a3c8b5f7e0d2c4a9b61"])
        settings.accessLog = false
        settings.publicFolder = nil
        settings.views = nil
        let app = App(settings: settings, logger: .quietForTests)
        app.post("/set") { request in
            request.session["who"] = "ann"
            return "set"
        }
        app.get("/get") { request in request.session["who"] ?? "none" }
        let client = TestClient(app)
        #expect(try await client.post("/set", form: [:]).status == .ok)
        #expect(try await client.get("/get").text == "ann")
    }

    @Test func testEnvironmentKeepsItsSecretWhenTheAppChanges() async throws {
        let app = sessionApp(.cookie)
        let client = TestClient(app)
        _ = try await client.post("/set", form: ["key": "who", "value": "ann"])
        // Defining more after the first request rebuilds the app; the session stays readable.
        app.get("/later") { request in request.session["who"] ?? "none" }
        #expect(try await client.get("/later").text == "ann")
        // As it is for another app of the same process.
        let other = TestClient(sessionApp(.cookie))
        other.setCookie(sessionCookie, try #require(client.cookies[sessionCookie]?.value))
        #expect(try await other.get("/get?key=who").text == "ann")
    }

    @Test func developmentKeepsItsSecretInAFileAcrossRestarts() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let secretFile = folder.file("session-secret")
        func makeApp() -> App {
            let app = isolatedApp(environment: .development) { $0.sessions.secretFile = secretFile }
            app.post("/save") { request in
                request.flash["notice"] = "Saved before the restart."
                try request.redirect(to: "/")
            }
            app.get("/") { request in request.flash["notice"] ?? "no message" }
            return app
        }
        let before = TestClient(makeApp())
        #expect(try await before.post("/save", form: [:]).status == .seeOther)
        let cookie = try #require(before.cookies[sessionCookie]?.value)

        let attributes = try FileManager.default.attributesOfItem(atPath: secretFile)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let secret = try String(contentsOfFile: secretFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(secret.utf8.count >= 32)

        let after = TestClient(makeApp())  // a restart: a new app, the same file
        after.setCookie(sessionCookie, cookie)
        #expect(try await after.get("/").text == "Saved before the restart.")
        #expect(try await after.get("/").text == "no message")
        // The file was kept as it was.
        #expect(try String(contentsOfFile: secretFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == secret)
    }

    @Test func developmentWithAnotherSecretFileCannotReadTheCookie() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        func makeApp(_ file: String) -> App {
            let app = isolatedApp(environment: .development) { $0.sessions.secretFile = folder.file(file) }
            app.post("/set") { request in
                request.session["who"] = "ann"
                return "set"
            }
            app.get("/get") { request in request.session["who"] ?? "none" }
            return app
        }
        let first = TestClient(makeApp("one"))
        _ = try await first.post("/set", form: [:])
        let second = TestClient(makeApp("two"))
        second.setCookie(sessionCookie, try #require(first.cookies[sessionCookie]?.value))
        #expect(try await second.get("/get").text == "none")
    }

    // MARK: Size

    @Test func tooLargeSessionFailsLoudlyInDevelopment() async throws {
        let app = sessionApp(.cookie, environment: .development)
        let client = TestClient(app)
        _ = try await client.post("/set", form: ["key": "small", "value": "kept"])
        let response = try await client.post("/set", form: ["key": "big", "value": String(repeating: "x", count: 5000)])
        #expect(response.status == .internalServerError)
        #expect(response.text.contains("session cookie would be"))
        #expect(response.text.contains("4096"))
        #expect(response.text.contains("big"))
        #expect(response.setCookieHeader() == nil)
        // The session stays as it was.
        #expect(try await client.get("/get?key=small").text == "kept")
        #expect(try await client.get("/get?key=big").text == "none")
    }

    @Test func tooLargeSessionIsServedWithoutTheCookieInProduction() async throws {
        let app = sessionApp(.cookie, environment: .production)
        let client = TestClient(app)
        _ = try await client.post("/set", form: ["key": "small", "value": "kept"])
        let response = try await client.post("/set", form: ["key": "big", "value": String(repeating: "x", count: 5000)])
        #expect(response.status == .ok)
        #expect(response.text == "set")
        #expect(response.setCookieHeader() == nil)
        #expect(try await client.get("/get?key=small").text == "kept")
    }

    @Test func memoryStoreKeepsLargeSessions() async throws {
        let client = TestClient(sessionApp(.memory, environment: .development))
        let big = String(repeating: "x", count: 5000)
        #expect(try await client.post("/set", form: ["key": "big", "value": big]).status == .ok)
        #expect(try await client.get("/get?key=big").text == big)
    }

    // MARK: Memory store

    @Test func memoryStoreIsBoundedDroppingTheLeastRecentlyUsed() async throws {
        let clock = TestClock()
        let store = MemorySessionStore(capacity: 3)
        let app = sessionApp(.memory, clock: clock) { $0.sessions.store = store }
        var clients: [TestClient] = []
        for index in 1...5 {
            let client = TestClient(app)
            _ = try await client.post("/set", form: ["key": "who", "value": "client \(index)"])
            clients.append(client)
            clock.advance(seconds: 1)
        }
        #expect(store.count == 3)
        var kept: [String] = []
        for client in clients { kept.append(try await client.get("/get?key=who").text) }
        #expect(kept == ["none", "none", "client 3", "client 4", "client 5"])
    }

    @Test func memoryStoreDestroyAllSignsEveryoneOut() async throws {
        let store = MemorySessionStore()
        let app = sessionApp(.memory) { $0.sessions.store = store }
        let client = TestClient(app)
        _ = try await client.post("/set", form: ["key": "who", "value": "ann"])
        #expect(store.count == 1)
        store.destroyAll()
        #expect(store.count == 0)
        #expect(try await client.get("/get?key=who").text == "none")
    }
}

/// `character` changed to its neighbour in the base64url alphabet (the lowest bit of its
/// six flipped); other characters to `A`.
private func flipped(_ character: Character) -> Character {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    guard let index = alphabet.firstIndex(of: character) else { return "A" }
    return alphabet[index ^ 1]
}

/// Base64 from base64url without padding.
private func base64(fromUrl text: String) -> String {
    let base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    return base64 + String(repeating: "=", count: (4 - base64.count % 4) % 4)
}
