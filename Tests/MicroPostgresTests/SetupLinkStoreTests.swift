import Foundation
import Micro
import MicroPostgres
import Testing

extension MicroPostgresTests {
    /// Set-up links in a database two instances share, on SQLite and PostgreSQL alike.
    @Suite struct SetupLinkStores {
        private func link(_ user: String, _ digest: String, expiresAt: Int64 = 5000) -> SetupLink {
            SetupLink(digest: digest, username: user, purpose: .reset, hashDigest: "h", createdAt: 1000, expiresAt: expiresAt)
        }

        @Test(arguments: TestDatabaseKind.available)
        func aLinkMadeOnOneInstanceIsTakenOnceOnEither(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 2) { (databases: [Database]) async throws in
                try await databases[0].migrate(DatabaseSetupLinkStore.migrations)
                try await databases[1].migrate(DatabaseSetupLinkStore.migrations)
                let one = DatabaseSetupLinkStore(databases[0]), two = DatabaseSetupLinkStore(databases[1])
                try await one.add(link("ann", "d1"), now: 1000)
                #expect(try await two.find(digest: "d1", now: 1001)?.username == "ann")
                // A newer link of the user replaces it.
                try await two.add(link("ann", "d2"), now: 1002)
                #expect(try await one.find(digest: "d1", now: 1003) == nil)
                // Taken at once on both: one gets it.
                async let first = one.take(digest: "d2", now: 1004)
                async let second = two.take(digest: "d2", now: 1004)
                let taken = [try await first, try await second].compactMap { $0 }
                #expect(taken.count == 1)
                // Expired: found by nobody.
                try await one.add(link("bob", "d3", expiresAt: 1500), now: 1000)
                #expect(try await two.find(digest: "d3", now: 1500) == nil)
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func ofManyResetsAtOnceOnTwoInstancesNoMoreThanTheLimitCountInAWindow(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 2) { (databases: [Database]) async throws in
                try await databases[0].migrate(DatabaseSetupLinkStore.migrations)
                try await databases[1].migrate(DatabaseSetupLinkStore.migrations)
                let stores = [DatabaseSetupLinkStore(databases[0]), DatabaseSetupLinkStore(databases[1])]
                let counted = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<12 {
                        group.addTask { try await stores[index % 2].countReset(of: "ann", now: 1000, limit: 3, window: 3600) }
                    }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                #expect(counted == 3)
                // Another user has places of their own.
                #expect(try await stores[1].countReset(of: "bob", now: 1000, limit: 3, window: 3600))
                // Within the window, none; once it passed, places again.
                #expect(try await stores[0].countReset(of: "ann", now: 4599, limit: 3, window: 3600) == false)
                #expect(try await stores[0].countReset(of: "ann", now: 4600, limit: 3, window: 3600))
            }
        }
    }
}
