import Foundation
import Micro
import MicroPostgres
import MicroTestSupport
import MicroTesting
import Testing

extension MicroPostgresTests {
    /// Users in PostgreSQL behave as in SQLite: looked up case-insensitively, changes seen at
    /// once by a sign-in and within moments by every instance's signed-in requests.
    @Suite(.enabled(if: PostgresTestDatabase.available, PostgresTestDatabase.skipNote)) struct UserStore {
        @Test func usersAreFoundCaseInsensitivelyAndNamesAreUniqueWhateverTheirCase() async throws {
            try await PostgresTestDatabase.withInstances(1) { test, instances in
                let shared = instances[0]
                try await shared.users.save(username: "User", passwordHash: TestHashes.secret123, name: nil)
                try await shared.users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann Smith")
                let hasher = PasswordHasher(threads: 1)
                let user = try #require(try await shared.users.find(username: "USER", using: hasher))
                #expect(user.user.username == "user")
                #expect(user.passwordHash == TestHashes.secret123)
                #expect(try await shared.users.find(username: "ann", using: hasher)?.user.name == "Ann Smith")
                #expect(try await shared.users.find(username: "' OR 1=1 --", using: hasher) == nil)
                // The synchronous look-up, for code off the event loops.
                let sync = try await Task.detached { try shared.users.find(username: "Ann") }.value
                #expect(sync?.user.username == "ann")
                await #expect(throws: (any Error).self) { try await test.sql("INSERT INTO users VALUES ('ANN', 'x', NULL)") }
                #expect(try await shared.users.count() == 2)
                #expect(try await shared.users.remove(username: "ANN"))
                #expect(try await shared.users.remove(username: "ann") == false)
                #expect(try await shared.users.find(username: "ann", using: hasher) == nil)
            }
        }

        @Test func aMalformedHashIsAnErrorNamingTheRow() async throws {
            try await PostgresTestDatabase.withInstances(1) { test, instances in
                let first = instances[0]
                try await test.sql("INSERT INTO users (username, password_hash) VALUES ('mallory', 'plain-text')")
                let error = await #expect(throws: UserStoreError.self) {
                    try await first.users.find(username: "mallory", using: PasswordHasher(threads: 1))
                }
                #expect(error?.description.contains("user 'mallory'") == true)
                #expect(error?.description.contains("not a bcrypt hash") == true)
                #expect(error?.description.contains("micro:micro") == false, "no password in messages")
                let database = try await SharedPostgresDatabase.connect(url: test.url)
                defer { database.shutdown() }
                let startup = await #expect(throws: ConfigurationError.self) { _ = try await PostgresUserStore(database) }
                #expect(startup?.message.contains("users row") == true)
                #expect(startup?.message.contains("user 'mallory'") == true)
            }
        }

        @Test func theSlowestCostFollowsTheTableOnEveryInstance() async throws {
            try await withTwoInstances { one, two, test in
                #expect(one.users.slowestCost == 4)
                #expect(await eventually { two.users.slowestCost == 4 })

                try await two.users.save(username: "dear", passwordHash: try Password.hash("dear-password", cost: 6), name: nil)
                #expect(two.users.slowestCost == 6)
                #expect(await eventually { one.users.slowestCost == 6 })
                try await test.sql("INSERT INTO users (username, password_hash) VALUES ('Dearer', '\(try Password.hash("x", cost: 7))')")
                #expect(await eventually { one.users.slowestCost == 7 && two.users.slowestCost == 7 })

                try await test.sql("DELETE FROM users WHERE username <> 'user'")
                #expect(await eventually { one.users.slowestCost == 4 && two.users.slowestCost == 4 })
                #expect(one.users.typicalCost == 4)
            }
        }

        @Test func aUserAddedWithPlainSqlSignsInAtOnceAndARemovedOneIsSignedOutOnEveryInstance() async throws {
            try await PostgresTestDatabase.withInstances(2) { test, instances in
                let one = instances[0], two = instances[1]
                try await test.sql("INSERT INTO users (username, password_hash) VALUES ('Zed', '\(TestHashes.secret123)')")
                let first = TestClient(one.makeApp()), second = TestClient(two.makeApp())
                #expect(try await signIn(first, "zed").location == "/")
                #expect(try await signIn(second, "ZED").location == "/")
                #expect(try await first.get("/me").text == "zed")
                #expect(try await eventually { try await second.get("/me").text == "zed" })

                // A new password set by plain SQL ends both sessions, on both instances.
                try await test.sql("UPDATE users SET password_hash = '\(TestHashes.annPassword)' WHERE username = 'Zed'")
                #expect(try await eventually { try await first.get("/me").text == "nobody" })
                #expect(try await eventually { try await second.get("/me").text == "nobody" })
                #expect(try await signIn(first, "zed", "ann-password").location == "/")
                #expect(try await first.get("/me").text == "zed")

                // Removed (as remove-user does, through another instance's store): signed out there too.
                #expect(try await two.users.remove(username: "zed"))
                #expect(try await eventually { try await first.get("/me").text == "nobody" })
                #expect(try await signIn(first, "zed", "ann-password").location == "/signin")
            }
        }

        @Test func rolesAreKeptListedAndAChangeByPlainSqlEndsTheSessions() async throws {
            try await PostgresTestDatabase.withInstances(2) { test, instances in
                let one = instances[0], two = instances[1]
                try await one.users.save(username: "Ann", passwordHash: TestHashes.annPassword, name: "Ann Smith", roles: ["admin", "ops"])
                try await one.users.save(username: "bob", passwordHash: TestHashes.secret123, name: nil)
                await #expect(throws: UserStoreError.self) {
                    try await one.users.save(username: "eve", passwordHash: TestHashes.secret123, name: nil, roles: ["Admin"])
                }
                #expect(try await two.users.find(username: "ann", using: PasswordHasher(threads: 1))?.user.roles == ["admin", "ops"])
                #expect(try await two.users.allUsers() == [
                    User(username: "ann", name: "Ann Smith", roles: ["admin", "ops"]), User(username: "bob"),
                ])
                let client = TestClient(two.makeApp())
                #expect(try await signIn(client, "ann", "ann-password").location == "/")
                #expect(try await client.get("/me").text == "ann")
                try await test.sql("UPDATE users SET roles = 'ops' WHERE username = 'ann'")
                #expect(try await two.users.find(username: "ann", using: PasswordHasher(threads: 1))?.user.roles == ["ops"])
                #expect(try await eventually { try await client.get("/me").text == "nobody" })
                // A malformed roles cell names the row, as a malformed hash does.
                try await test.sql("UPDATE users SET roles = 'ad;min' WHERE username = 'bob'")
                let error = await #expect(throws: UserStoreError.self) {
                    try await one.users.find(username: "bob", using: PasswordHasher(threads: 1))
                }
                #expect(error?.description.contains("user 'bob'") == true)
            }
        }
    }
}
