import Foundation
import Micro
import MicroPostgres
import MicroTestSupport
import MicroTesting
import Testing

extension MicroPostgresTests {
    /// Two instances of an app over one database share the throttle and the revocations.
    @Suite(.enabled(if: PostgresTestDatabase.available, PostgresTestDatabase.skipNote)) struct Sharing {
        @Test func fiveFailuresSplitOverTwoInstancesLockTheNameOnBoth() async throws {
            try await PostgresTestDatabase.withInstances(2) { _, instances in
                let one = instances[0], two = instances[1]
                try await one.users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
                let first = TestClient(one.makeApp()), second = TestClient(two.makeApp())
                for attempt in 0..<5 {
                    let client = attempt.isMultiple(of: 2) ? first : second
                    #expect(try await signIn(client, attempt == 3 ? "USER" : "user", "wrong").location == "/signin")
                }
                for client in [first, second] {
                    let refused = try await signIn(client)
                    #expect(refused.status == .tooManyRequests)
                    #expect(refused.headers.first(name: "Retry-After").flatMap(Int.init).map { $0 > 0 } == true)
                }
                // Another name is not locked (the address allows more).
                try await one.users.save(username: "ann", passwordHash: TestHashes.annPassword, name: nil)
                #expect(try await signIn(second, "ann", "ann-password").location == "/")
            }
        }

        @Test func aSuccessClearsTheNamesFailuresOnEveryInstance() async throws {
            try await PostgresTestDatabase.withInstances(2) { _, instances in
                let one = instances[0], two = instances[1]
                try await one.users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
                let first = TestClient(one.makeApp()), second = TestClient(two.makeApp())
                for _ in 0..<4 { _ = try await signIn(first, "user", "wrong") }
                #expect(try await signIn(second).location == "/")
                for _ in 0..<4 { #expect(try await signIn(first, "user", "wrong").location == "/signin") }
                #expect(try await signIn(TestClient(two.makeApp())).location == "/")
            }
        }

        @Test func aSignOutOnOneInstanceEndsTheSessionOnTheOther() async throws {
            try await PostgresTestDatabase.withInstances(2) { _, instances in
                let one = instances[0], two = instances[1]
                try await one.users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
                // The other instance learns of the new user by notification, within moments: a
                // session of a user it has not heard of yet is not current there.
                let stamp = CredentialStamp(username: "user", passwordHash: TestHashes.secret123)
                #expect(await eventually { two.users.isCurrent(stamp, username: "user") })
                let appOne = one.makeApp(), appTwo = two.makeApp()
                let browser = TestClient(appOne)
                #expect(try await signIn(browser).location == "/")
                let cookie = try #require(browser.cookies["micro.session"]?.value)
                // The same cookie opens on the other instance (same secret)...
                let elsewhere = TestClient(appTwo)
                elsewhere.setCookie("micro.session", cookie)
                #expect(try await elsewhere.get("/me").text == "user")
                // ...until it signs out there: replayed on the first instance, it is refused.
                #expect(try await elsewhere.post("/signout", form: [:]).location == "/")
                let replay = TestClient(appOne)
                replay.setCookie("micro.session", cookie)
                #expect(try await eventually { try await replay.get("/me").text == "nobody" })
                #expect(await eventually { two.revocations.unwrittenCount == 0 })
            }
        }

        @Test func aSignInThatReHashesKeepsItsSessionOnEveryInstance() async throws {
            try await PostgresTestDatabase.withInstances(2) { _, instances in
                let one = instances[0], two = instances[1]
                // Another cost than the apps' (4): the sign-in re-hashes it.
                let imported = try Password.hash("secret123", cost: 5)
                try await one.users.save(username: "user", passwordHash: imported, name: nil)
                #expect(await eventually { two.users.isCurrent(CredentialStamp(username: "user", passwordHash: imported), username: "user") })
                let appOne = one.makeApp(), appTwo = two.makeApp()
                let browser = TestClient(appOne)
                #expect(try await signIn(browser).location == "/")
                let cookie = try #require(browser.cookies["micro.session"]?.value)
                let rehashed = try #require(try await one.users.find(username: "user", using: .shared)?.passwordHash)
                #expect(Password.cost(of: rehashed) == 4)
                // At once, on the other instance (which may not have heard of the new hash yet)
                // and on this one, and still once every instance has.
                let elsewhere = TestClient(appTwo)
                elsewhere.setCookie("micro.session", cookie)
                #expect(try await elsewhere.get("/me").text == "user")
                #expect(try await browser.get("/me").text == "user")
                #expect(await eventually { two.users.isCurrent(CredentialStamp(username: "user", passwordHash: rehashed), username: "user") })
                #expect(try await elsewhere.get("/me").text == "user")
                #expect(try await browser.get("/me").text == "user")
                // A new password still ends it everywhere.
                try await two.users.save(username: "user", passwordHash: TestHashes.annPassword, name: nil)
                #expect(try await eventually { try await browser.get("/me").text == "nobody" })
                #expect(try await eventually { try await elsewhere.get("/me").text == "nobody" })
            }
        }

        @Test func signOutEveryoneOnOneInstanceEndsEverySessionOnTheOthers() async throws {
            try await withTwoInstances { one, two, _ in
                try await one.users.save(username: "ann", passwordHash: TestHashes.annPassword, name: nil)
                let appOne = one.makeApp(), appTwo = two.makeApp()
                let here = TestClient(appOne), there = TestClient(appTwo)
                #expect(try await signIn(here).location == "/")
                #expect(try await signIn(there, "ann", "ann-password").location == "/")
                #expect(try await there.get("/me").text == "ann")

                appOne.signOutEveryone()
                #expect(try await here.get("/me").text == "nobody")
                #expect(try await eventually { try await there.get("/me").text == "nobody" })
                #expect(await eventually { one.revocations.unwrittenCount == 0 })
            }
        }

        @Test func signOutEverywhereAndAnInstanceStartedLaterSeeEarlierRevocations() async throws {
            try await PostgresTestDatabase.withInstances(1) { test, instances in
                let one = instances[0]
                try await one.users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
                let appOne = one.makeApp()
                let laptop = TestClient(appOne), phone = TestClient(appOne)
                #expect(try await signIn(laptop).location == "/")
                #expect(try await signIn(phone).location == "/")
                let phoneCookie = try #require(phone.cookies["micro.session"]?.value)
                let laptopCookie = try #require(laptop.cookies["micro.session"]?.value)
                #expect(try await laptop.post("/signout", form: [:]).location == "/")
                one.revocations.revokeSessions(of: "user", at: Int64(Date().timeIntervalSince1970 * 1000), until: .max / 2, now: Int64(Date().timeIntervalSince1970))
                #expect(await eventually { one.revocations.unwrittenCount == 0 })
                // An instance that starts now reads both from the table.
                let two = try await SharedStores.connect(test.url)
                defer { two.database.shutdown() }
                for cookie in [phoneCookie, laptopCookie] {
                    let replay = TestClient(two.makeApp())
                    replay.setCookie("micro.session", cookie)
                    #expect(try await replay.get("/me").text == "nobody")
                }
            }
        }
    }
}
