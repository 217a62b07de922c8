import Foundation
import Micro
import MicroPostgres
import MicroTestSupport
import MicroTesting
import NIOConcurrencyHelpers
import Testing

extension MicroPostgresTests {
    /// SCIM over PostgreSQL shared by two instances: a user disabled through one is signed out
    /// on the other within two seconds, and enabled again, their old cookie stays dead.
    @Suite(.enabled(if: PostgresTestDatabase.available, PostgresTestDatabase.skipNote)) struct ScimInstances {
        private func app(_ stores: SharedStores, clock: NIOLockedValueBox<Date>) -> App {
            let app = stores.makeApp()
            app.settings.clock = { clock.withLockedValue { $0 } }
            var accounts = Accounts(database: stores.database.database)
            accounts.scim = ScimProvisioning()
            app.use(accounts)
            return app
        }

        private func patch(_ client: TestClient, _ token: String, active: String) async throws -> TestResponse {
            try await client.request(
                .PATCH, "/scim/v2/Users/user",
                headers: ["Authorization": "Bearer " + token, "Content-Type": "application/scim+json"],
                body: Array(#"{"Operations":[{"op":"Replace","path":"active","value":"\#(active)"}]}"#.utf8))
        }

        @Test func activeFalseThroughOneInstanceEndsTheSessionOnTheOtherWithinTwoSeconds() async throws {
            try await PostgresTestDatabase.withInstances(2) { _, instances in
                let one = instances[0], two = instances[1]
                try await one.users.save(username: "ann", passwordHash: TestHashes.annPassword, name: nil, roles: ["admin"])
                try await one.users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
                #expect(await eventually { two.users.isCurrent(CredentialStamp(username: "user", passwordHash: TestHashes.secret123), username: "user") })
                try await one.database.database.migrate(DatabaseScimStore.migrations)
                let (secret, token) = ScimToken.make(name: "entra", now: Int64(Date().timeIntervalSince1970))
                try await DatabaseScimStore(one.database.database).add(token)
                let clock = NIOLockedValueBox(Date())
                let appOne = app(one, clock: clock), appTwo = app(two, clock: clock)
                let browser = TestClient(appTwo)
                #expect(try await signIn(browser).location == "/")
                #expect(try await browser.get("/me").text == "user")
                let cookie = try #require(browser.cookies["micro.session"]?.value)

                let provider = TestClient(appOne)
                #expect(try await patch(provider, secret, active: "False").status == .ok)
                #expect(try await eventually(within: .seconds(2)) { try await browser.get("/me").text == "nobody" })
                #expect(try await signIn(TestClient(appTwo)).location == "/signin")

                clock.withLockedValue { $0 += 1 }
                #expect(try await patch(TestClient(appTwo), secret, active: "True").status == .ok)
                #expect(await eventually { two.users.isCurrent(CredentialStamp(username: "user", passwordHash: TestHashes.secret123), username: "user") })
                let replay = TestClient(appOne)
                replay.setCookie("micro.session", cookie)
                #expect(try await replay.get("/me").text == "nobody")
                clock.withLockedValue { $0 += 1 }
                #expect(try await signIn(TestClient(appOne)).location == "/")
            }
        }
    }
}
