import Foundation
import Micro
import MicroPostgres
import MicroTesting
import MicroTwoFactor
import Testing

extension MicroPostgresTests {
    /// Two-factor sign-in with two instances over one PostgreSQL database: a code is good once,
    /// whichever instance sees it.
    @Suite(.enabled(if: PostgresTestDatabase.available, PostgresTestDatabase.skipNote)) struct TwoFactorSharing {
        private func values(of attribute: String, in html: String) -> [String] {
            html.components(separatedBy: attribute + "=\"").dropFirst().compactMap { $0.split(separator: "\"", maxSplits: 1).first.map(String.init) }
        }

        @Test func aCodeUsedOnOneInstanceIsRefusedOnTheOther() async throws {
            try await withTwoInstances { one, two, _ in
                let time = Date(timeIntervalSince1970: 1_800_000_000)
                let apps = [one, two].map { shared -> App in
                    let app = shared.makeApp()
                    app.settings.clock = { time }
                    app.use(Accounts(database: shared.database.database))
                    return app
                }
                let owner = TestClient(apps[0])
                try await owner.signIn("user", "secret123")
                let setup = try await owner.post("/account/two-factor/setup", form: ["current_password": "secret123"])
                let totp = Totp(secret: try #require(values(of: "data-totp-secret", in: setup.text).first.flatMap(Base32.decode)))
                let now = Int64(time.timeIntervalSince1970)
                // The step after the current one: the enabling code took the current one.
                let enabled = try await owner.post("/account/two-factor/enable", form: ["code": totp.code(at: now)])
                #expect(values(of: "data-recovery-code", in: enabled.text).count == 10)
                let code = totp.code(at: now + 30)
                let first = TestClient(apps[0]), second = TestClient(apps[1])
                #expect(try await first.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/signin/two-factor")
                #expect(try await second.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/signin/two-factor")
                #expect(try await second.post("/signin/two-factor", form: ["code": code]).status == .seeOther)
                #expect(try await first.post("/signin/two-factor", form: ["code": code]).status == .unprocessableEntity)
                #expect(try await first.get("/me").text == "nobody")
                #expect(try await second.get("/me").text == "user")
            }
        }
    }
}
