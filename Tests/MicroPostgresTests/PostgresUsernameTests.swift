import Foundation
import Micro
import MicroPostgres
import MicroTestSupport
import Testing

extension MicroPostgresTests {
    /// The `users` table holds each name in its enforced form (``Username``), as SQLite's does.
    @Suite(.enabled(if: PostgresTestDatabase.available, PostgresTestDatabase.skipNote)) struct Usernames {
        @Test func openingTheStoreRewritesNamesToTheEnforcedForm() async throws {
            try await PostgresTestDatabase.withInstances(1) { test, instances in
                try await test.sql("INSERT INTO users (username, password_hash) VALUES ('ÉMILE', '\(TestHashes.secret123)'), ('ＡＮＮ', '\(TestHashes.annPassword)')")
                let database = try await SharedPostgresDatabase.connect(url: test.url)
                defer { database.shutdown() }
                let store = try await PostgresUserStore(database)
                let hasher = PasswordHasher(threads: 1)
                #expect(try await store.find(username: "e\u{301}mile", using: hasher)?.user.username == "émile")
                #expect(try await store.find(username: "Ann", using: hasher)?.user.username == "ann")
                // The rows hold the enforced names: deleting them by those names leaves none.
                try await test.sql("DELETE FROM users WHERE username IN ('émile', 'ann')")
                #expect(try await store.count() == 0)
                try await store.save(username: "ＫＡＴＥ", passwordHash: TestHashes.secret123, name: nil)
                await #expect(throws: UserStoreError.self) { try await store.save(username: "\u{212A}ate", passwordHash: TestHashes.secret123, name: nil) }
                #expect(try await store.allUsers().map(\.username) == ["kate"])
            }
        }

        @Test func aRowAddedBySqlInAnotherSpellingDoesNotSignTheUserOut() async throws {
            try await PostgresTestDatabase.withInstances(1) { test, instances in
                let users = instances[0].users
                try await users.save(username: "kate", passwordHash: TestHashes.secret123, name: nil)
                let kate = try #require(try await users.find(username: "kate", using: PasswordHasher(threads: 1)))
                try await test.sql("INSERT INTO users (username, password_hash) VALUES ('ｋａｔｅ', '\(TestHashes.annPassword)')")
                // What a reconnection or a TRUNCATE sends: every instance reads the whole table
                // again, and kate's stamp is still hers.
                try await test.sql("SELECT pg_notify('micro_changes', 'u*')")
                try await Task.sleep(for: .milliseconds(500))
                #expect(users.isCurrent(CredentialStamp(kate), username: "kate"))
            }
        }

        @Test func twoSpellingsOfOneNameStopStartUpNamingBothRows() async throws {
            try await PostgresTestDatabase.withInstances(1) { test, instances in
                // PostgreSQL's lower() leaves fullwidth letters as they are: both rows go in.
                try await test.sql("INSERT INTO users (username, password_hash) VALUES ('kate', '\(TestHashes.secret123)'), ('ｋａｔｅ', '\(TestHashes.annPassword)')")
                let database = try await SharedPostgresDatabase.connect(url: test.url)
                defer { database.shutdown() }
                let startup = await #expect(throws: ConfigurationError.self) { _ = try await PostgresUserStore(database) }
                #expect(startup?.message.contains("('kate') and") == true, "\(startup?.message ?? "")")
                #expect(startup?.message.contains("('ｋａｔｅ') are one user, 'kate'") == true, "\(startup?.message ?? "")")

                try await test.sql("DELETE FROM users WHERE username = 'ｋａｔｅ'")
                try await test.sql("INSERT INTO users (username, password_hash) VALUES ('bob ', '\(TestHashes.secret123)')")
                let outside = await #expect(throws: ConfigurationError.self) { _ = try await PostgresUserStore(database) }
                #expect(outside?.message.contains("the username 'bob ' holds a space") == true, "\(outside?.message ?? "")")
            }
        }
    }
}
