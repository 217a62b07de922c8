import Foundation
import Micro
import MicroPasskeys
import MicroPostgres
import MicroTesting
import Testing

extension MicroPostgresTests {
    /// Passkeys over a shared database: the one store against SQLite and PostgreSQL, two
    /// instances over one database.
    @Suite struct PasskeyStores {
        private let now: Int64 = 1_800_000_000

        private func passkey(_ index: Int, user: String = "ann", handle: UInt8 = 1) -> Passkey {
            Passkey(
                credentialId: Array("credential-\(user)-\(index)".utf8), username: user, userHandle: Array(repeating: handle, count: 32),
                name: "key \(index) <b>'\"", publicKey: PasskeyPublicKey(algorithm: .es256, bytes: Array(repeating: UInt8(index), count: 64)),
                signCount: UInt32(index), backupEligible: index.isMultiple(of: 2), createdAt: now + Int64(index),
                addedFromAddress: "2001:db8::\(index)", addedFromUserAgent: "Firefox/128.0 \u{202E}\(index) <b>")
        }

        @Test(arguments: TestDatabaseKind.available)
        func passkeysAreSharedBoundedAndTheirCountersMoveOnce(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 2) { (databases: [Database]) async throws in
                for database in databases { try await database.migrate(PasskeyStore.migrations) }
                let one = PasskeyStore(databases[0]), two = PasskeyStore(databases[1])
                for index in 0..<10 { #expect(try await one.add(passkey(index), limit: 10) == .added) }
                #expect(try await two.add(passkey(10), limit: 10) == .full, "the 11th")
                #expect(try await two.passkeys(of: "ann").count == 10)
                #expect(try await two.add(passkey(0, user: "bob", handle: 2), limit: 10) == .added, "another user's budget")
                var taken = passkey(1, user: "bob", handle: 2)
                taken.credentialId = passkey(1).credentialId
                #expect(try await two.add(taken, limit: 10) == .credentialTaken)
                #expect(try await one.passkey(credentialId: passkey(1).credentialId) == passkey(1))

                #expect(try await two.passkey(credentialId: passkey(3).credentialId) == passkey(3))
                #expect(try await two.passkey(credentialId: Array("nothing".utf8)) == nil)
                #expect(try await two.passkeys(of: "ann").map(\.name).prefix(2) == ["key 0 <b>'\"", "key 1 <b>'\""])
                #expect(try await two.userHandle(of: "bob") == Array(repeating: 2, count: 32))
                #expect(try await two.userHandle(of: "carl") == nil)
                #expect(try await two.counts() == ["ann": 10, "bob": 1])

                // Renamed and removed only by their owner.
                #expect(try await one.rename(credentialId: passkey(2).credentialId, of: "bob", to: "mine") == false)
                #expect(try await one.rename(credentialId: passkey(2).credentialId, of: "ann", to: "Laptop"))
                #expect(try await two.passkey(credentialId: passkey(2).credentialId)?.name == "Laptop")
                #expect(try await two.remove(credentialId: passkey(4).credentialId, of: "bob") == nil)
                #expect(try await two.remove(credentialId: passkey(4).credentialId, of: "ann") == passkey(4))
                #expect(try await one.passkey(credentialId: passkey(4).credentialId) == nil)

                // A counter moves once: of two instances given answers with the same counter,
                // the second finds it moved.
                #expect(try await one.use(credentialId: passkey(5).credentialId, previous: 5, signCount: 6, now: now + 100))
                #expect(try await two.use(credentialId: passkey(5).credentialId, previous: 5, signCount: 6, now: now + 101) == false)
                let used = try #require(try await two.passkey(credentialId: passkey(5).credentialId))
                #expect(used.signCount == 6 && used.lastUsedAt == now + 100)

                // A challenge is spent once on any instance.
                let challenge = PasskeyChallenge(purpose: .signIn, now: now)
                #expect(try await one.spend(challenge, now: now))
                #expect(try await two.spend(challenge, now: now + 1) == false)
                #expect(try await two.spend(PasskeyChallenge(purpose: .signIn, now: now), now: now + 1))

                // A row spoiled by hand is left out, not an error.
                try await databases[0].sql.update("micro_passkeys").set("public_key", to: "!!").where("username", .equal, "bob").run()
                #expect(try await one.passkeys(of: "bob").isEmpty)
                #expect(try await one.removeAll(of: "ann") == 9)
                #expect(try await two.counts() == ["bob": 1])
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func ofManyAdditionsAtOnceForTheLastPlaceExactlyOneHasIt(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 2) { (databases: [Database]) async throws in
                for database in databases { try await database.migrate(PasskeyStore.migrations) }
                let stores = databases.map(PasskeyStore.init)
                for index in 0..<2 { #expect(try await stores[0].add(passkey(index), limit: 3) == .added) }
                let results = try await withThrowingTaskGroup(of: PasskeyStore.AddResult.self) { group in
                    for index in 2..<10 { group.addTask { try await stores[index % 2].add(passkey(index), limit: 3) } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(results.filter { $0 == .added }.count == 1, "\(results)")
                #expect(results.filter { $0 == .full }.count == 7, "\(results)")
                #expect(try await stores[1].passkeys(of: "ann").count == 3)
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func spentChallengesAreDeletedOnceExpired(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 1) { (databases: [Database]) async throws in
                try await databases[0].migrate(PasskeyStore.migrations)
                let store = PasskeyStore(databases[0])
                for index in 0..<60 {
                    #expect(try await store.spend(PasskeyChallenge(purpose: .signIn, now: now + Int64(index)), now: now + Int64(index)))
                }
                let later = now + 60 + PasskeyChallenge.lifetime + 60
                for index in 0..<60 { #expect(try await store.spend(PasskeyChallenge(purpose: .signIn, now: later), now: later + Int64(index))) }
                let rows = try await databases[0].sql.select().column("digest").from("micro_passkey_spent_challenges").all()
                // A sweep among the later 60 deleted the first 60, all expired by then.
                #expect(rows.count == 60)
            }
        }
    }
}
