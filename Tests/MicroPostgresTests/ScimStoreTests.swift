import Foundation
import Micro
import MicroPostgres
import Testing

extension MicroPostgresTests {
    /// SCIM tokens and groups in a database two instances share, on SQLite and PostgreSQL alike.
    @Suite struct ScimStores {
        @Test(arguments: TestDatabaseKind.available)
        func aTokenMadeOnOneInstanceOpensOnBothUntilEveryOneIsRevoked(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 2) { (databases: [Database]) async throws in
                // Both instances migrate at start: the second finds the tables made.
                try await databases[0].migrate(DatabaseScimStore.migrations)
                try await databases[1].migrate(DatabaseScimStore.migrations)
                let one = DatabaseScimStore(databases[0]), two = DatabaseScimStore(databases[1])
                let (secret, token) = ScimToken.make(name: "okta", now: 1000)
                let (_, other) = ScimToken.make(name: "entra", now: 1001)
                try await one.add(token)
                try await two.add(other)
                // Only the digest is kept, and looked up by it.
                #expect(try await two.token(digest: ApiTokenSecret.digest(of: secret)) == token)
                #expect(try await one.token(digest: secret) == nil)
                #expect(try await one.tokens().map(\.name) == ["okta", "entra"])
                try await two.touch(id: token.id, now: 2000)
                #expect(try await one.token(digest: token.digest)?.lastUsedAt == 2000)
                // At most once a minute.
                try await one.touch(id: token.id, now: 2030)
                #expect(try await two.token(digest: token.digest)?.lastUsedAt == 2000)
                #expect(try await two.revokeAll() == 2)
                #expect(try await one.token(digest: token.digest) == nil)
                #expect(try await one.tokens().isEmpty)
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func groupsAreKeptOnceAndForgotten(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 2) { (databases: [Database]) async throws in
                for database in databases { try await database.migrate(DatabaseScimStore.migrations) }
                let one = DatabaseScimStore(databases[0]), two = DatabaseScimStore(databases[1])
                #expect(try await one.hasGroup("editors") == false)
                try await one.addGroup("editors", now: 1000)
                try await two.addGroup("editors", now: 1001)
                try await two.addGroup("ops", now: 1002)
                #expect(try await one.groups() == ["editors", "ops"])
                #expect(try await two.removeGroup("editors"))
                #expect(try await one.removeGroup("editors") == false)
                #expect(try await one.hasGroup("editors") == false)
                #expect(try await two.hasGroup("ops"))
            }
        }
    }
}
