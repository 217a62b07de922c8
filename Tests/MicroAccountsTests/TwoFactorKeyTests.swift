import Foundation
import Logging
@testable import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
@testable import MicroTwoFactor
import Testing

/// What the data key guards at rest: recovery codes keyed with it (old unkeyed rows keyed in
/// place and still good), and a key that is not the one the secrets were sealed with.
extension TwoFactorTests {
    private func digests(_ database: Database) async throws -> [String] {
        try await database.sql.select().column("digest").from("micro_recovery_codes").all().map { try $0.decode(column: "digest", as: String.self) }
    }

    @Test func recoveryCodesAreKeyedAndRowsKeptUnkeyedAreKeyedInPlaceAndStillWork() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let (app, database) = try await makeApp(folder, clock: clock)
        let owner = TestClient(app)
        try await owner.signIn("user", "secret123")
        let (_, codes) = try await turnOn(owner, password: "secret123", clock: clock)
        // What a dump holds is no SHA-256 of a code: trying the 2^50 codes offline finds none.
        let keyed = try await digests(database)
        let unkeyed = codes.map { RecoveryCodes.unkeyedDigest(RecoveryCodes.normalized($0)!, of: "user") }
        #expect(keyed.count == 10 && keyed.allSatisfy { $0.hasPrefix(RecoveryCodes.keyedPrefix) })
        #expect(Set(keyed).isDisjoint(with: unkeyed))
        let otherKey = DataKey(material: SessionSecret.randomSecret())
        #expect(Set(keyed).isDisjoint(with: codes.map { RecoveryCodes.digest(RecoveryCodes.normalized($0)!, of: "user", key: otherKey) }))

        // Rows as an earlier version kept them: unkeyed digests of codes the user holds.
        let old = RecoveryCodes.make()
        try await database.sql.delete(from: "micro_recovery_codes").run()
        for code in old {
            try await database.sql.insert(into: "micro_recovery_codes").columns("username", "digest")
                .values(SQLBind("user"), SQLBind(RecoveryCodes.unkeyedDigest(RecoveryCodes.normalized(code)!, of: "user"))).run()
        }
        // The next start keys them without knowing the codes; the codes still sign in, once.
        let (restarted, _) = try await makeApp(folder, clock: clock)
        let client = TestClient(restarted)
        #expect(try await client.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/signin/two-factor")
        let rekeyed = try await digests(database)
        #expect(rekeyed.count == 10 && rekeyed.allSatisfy { $0.hasPrefix(RecoveryCodes.keyedPrefix) })
        #expect(Set(rekeyed).isDisjoint(with: old.map { RecoveryCodes.unkeyedDigest(RecoveryCodes.normalized($0)!, of: "user") }))
        #expect(try await client.post("/signin/two-factor", form: ["code": old[2]]).status == .seeOther)
        #expect(try await client.get("/me").text == "user")
        let again = TestClient(restarted)
        #expect(try await again.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/signin/two-factor")
        #expect(try await again.post("/signin/two-factor", form: ["code": old[2]]).status == .unprocessableEntity)
        #expect(try await again.post("/signin/two-factor", form: ["code": old[5]]).status == .seeOther)
        // The codes made before the rows were replaced are gone with them.
        #expect(try await TestClient(restarted).post("/signin", form: ["username": "user", "password": "secret123"]).status == .seeOther)
    }

    @Test func anotherDataKeyStopsProductionNamingTheVariableAndTheWaysOut() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let (test, database) = try await makeApp(folder, clock: clock)
        let owner = TestClient(test)
        try await owner.signIn("user", "secret123")
        _ = try await turnOn(owner, password: "secret123", clock: clock)
        func production() async throws -> ConfigurationError? {
            let (app, _) = try await makeApp(folder, clock: clock, environment: .production)
            app.settings.variables["MICRO_DATA_KEY"] = SessionSecret.randomSecret()
            do {
                _ = try await TestClient(app).get("/signin")
                return nil
            } catch let error as ConfigurationError {
                return error
            }
        }
        let refused = try #require(try await production(), "production started with another MICRO_DATA_KEY")
        #expect(refused.message.contains("MICRO_DATA_KEY") && refused.message.contains("'user'"))
        #expect(refused.message.contains("set MICRO_DATA_KEY back") && refused.message.contains("reset-two-factor"))
        // A database whose check value predates the key check: the secrets tell the key.
        try await database.sql.delete(from: "micro_data_key").run()
        #expect(try await production() != nil)
        // With the second factor reset, nothing is sealed under the old key: the new one starts.
        #expect(try await TwoFactorReset.reset("user", in: database))
        #expect(try await production() == nil)
    }

    @Test func aSecretThatWillNotOpenIsLoggedAsThatAndIsNoFailedSignIn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock()
        let (test, database) = try await makeApp(folder, clock: clock)
        let owner = TestClient(test)
        try await owner.signIn("user", "secret123")
        let (totp, codes) = try await turnOn(owner, password: "secret123", clock: clock)
        // Outside production another key starts, and says so at error level.
        let log = LogRecorder()
        let (app, _) = try await makeApp(folder, clock: clock, log: log)
        app.settings.variables["MICRO_DATA_KEY"] = SessionSecret.randomSecret()
        let client = TestClient(app)
        #expect(try await client.get("/signin").status == .ok)
        #expect(log.messages(at: .error).contains { $0.contains("MICRO_DATA_KEY") && $0.contains("'user'") })
        // Right codes, more than the lockout allows: each a 503 that says why, none the user's failure.
        for attempt in 0..<6 {
            clock.advance(seconds: 30)
            #expect(try await client.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/signin/two-factor")
            let code = attempt == 0 ? codes[0] : totp.code(at: now(clock))
            let answer = try await client.post("/signin/two-factor", form: ["code": code])
            #expect(answer.status == .serviceUnavailable)
            #expect(answer.text.contains("cannot read your second factor"))
        }
        #expect(log.messages(at: .error).contains { $0.contains("two-factor secret of user does not open with this MICRO_DATA_KEY") })
        let failures = try await database.sql.select().column("id").from("micro_activity").where("event", .equal, ActivityEvent.Kind.signInFailed).all()
        #expect(failures.isEmpty)
        // The right key again: the recovery code was not spent, and the user is not locked out.
        let (fixed, _) = try await makeApp(folder, clock: clock)
        let back = TestClient(fixed)
        #expect(try await back.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/signin/two-factor")
        #expect(try await back.post("/signin/two-factor", form: ["code": codes[0]]).status == .seeOther)
        #expect(try await back.get("/me").text == "user")
    }
}
