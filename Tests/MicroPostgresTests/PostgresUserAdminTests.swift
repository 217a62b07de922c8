import Foundation
import Micro
import MicroPostgres
import MicroTestSupport
import MicroTesting
import NIOConcurrencyHelpers
import Testing

extension MicroPostgresTests {
    /// The admin's users page over PostgreSQL, with two instances sharing the database.
    @Suite(.enabled(if: PostgresTestDatabase.available, PostgresTestDatabase.skipNote)) struct UserAdmin {
        /// The instance's app with the account pages, on `clock` (seconds since 1970).
        private func app(_ stores: SharedStores, clock: NIOLockedValueBox<Date>) -> App {
            let app = stores.makeApp()
            app.settings.clock = { clock.withLockedValue { $0 } }
            app.use(Accounts())
            return app
        }

        @Test func aUserDisabledOnOneInstanceIsRefusedOnTheOther() async throws {
            try await PostgresTestDatabase.withInstances(2) { _, instances in
                let one = instances[0], two = instances[1]
                try await one.users.save(username: "ann", passwordHash: TestHashes.annPassword, name: nil, roles: ["admin"])
                try await one.users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
                #expect(await eventually { two.users.isCurrent(CredentialStamp(username: "user", passwordHash: TestHashes.secret123), username: "user") })
                let clock = NIOLockedValueBox(Date())
                let appOne = app(one, clock: clock), appTwo = app(two, clock: clock)
                let ann = TestClient(appOne)
                #expect(try await signIn(ann, "ann", "ann-password").location == "/")
                try await ann.confirmAdmin("ann-password")
                let browser = TestClient(appTwo)
                #expect(try await signIn(browser).location == "/")
                #expect(try await browser.get("/me").text == "user")
                let cookie = try #require(browser.cookies["micro.session"]?.value)

                #expect(try await ann.post("/admin/users/disable", form: ["username": "user"]).status == .seeOther)
                #expect(try await eventually { try await browser.get("/me").text == "nobody" })
                #expect(try await signIn(TestClient(appTwo)).location == "/signin")
                #expect(try await one.users.managedUsers().map(\.isDisabled) == [false, true])

                // Enabled again on one instance: the old cookie stays dead on the other.
                clock.withLockedValue { $0 += 1 }
                #expect(try await ann.post("/admin/users/enable", form: ["username": "user"]).status == .seeOther)
                #expect(await eventually { two.users.isCurrent(CredentialStamp(username: "user", passwordHash: TestHashes.secret123), username: "user") })
                let replay = TestClient(appTwo)
                replay.setCookie("micro.session", cookie)
                #expect(try await replay.get("/me").text == "nobody")
                clock.withLockedValue { $0 += 1 }
                #expect(try await signIn(browser).location == "/")
                #expect(try await browser.get("/me").text == "user")

                // Removed on one: the session ends on the other.
                #expect(try await ann.post("/admin/users/remove", form: ["username": "user"]).status == .seeOther)
                #expect(try await eventually { try await browser.get("/me").text == "nobody" })
                #expect(try await ann.get("/admin/users", headers: ["Accept": "application/json"]).text.contains(#""username":"user""#) == false)
            }
        }

        @Test func aNewPasswordSetOnOneInstanceEndsTheSessionOnTheOther() async throws {
            try await PostgresTestDatabase.withInstances(2) { _, instances in
                let one = instances[0], two = instances[1]
                try await one.users.save(username: "ann", passwordHash: TestHashes.annPassword, name: nil, roles: ["admin"])
                #expect(try await one.users.addUser(username: "émile", name: "Émile", roles: [], passwordHash: TestHashes.secret123))
                #expect(try await two.users.addUser(username: "ÉMILE", name: nil, roles: [], passwordHash: TestHashes.annPassword) == false)
                let clock = NIOLockedValueBox(Date())
                let ann = TestClient(app(one, clock: clock))
                #expect(try await signIn(ann, "ann", "ann-password").location == "/")
                try await ann.confirmAdmin("ann-password")
                let browser = TestClient(app(two, clock: clock))
                #expect(try await eventually { try await signIn(browser, "E\u{301}MILE", "secret123").location == "/" })
                let set = try await ann.post("/admin/users/password", form: ["username": "Émile", "new_password": "a new start 42"])
                #expect(set.status == .seeOther)
                #expect(try await eventually { try await browser.get("/me").text == "nobody" })
                clock.withLockedValue { $0 += 1 }
                #expect(try await signIn(browser, "émile", "a new start 42").location == "/")
            }
        }
    }
}
