import Foundation
@testable import MicroAccounts
import MicroAuth
import MicroCore
import MicroPostgres
import MicroTesting
@testable import MicroTwoFactor
import Testing

extension MicroPostgresTests {
    /// The activity log's tables apart (ended accounts, unknown users) and the recovery codes
    /// keyed in place, on SQLite and PostgreSQL, by instances that start together.
    @Suite struct SecretsAndHistoryStores {
        @Test(arguments: TestDatabaseKind.available)
        func unknownUsersEventsMoveApartAndEndedAccountsAreMarked(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 2) { (databases: [Database]) async throws in
                // The table as an earlier version left it, an unknown user's event among the accounts'.
                try await databases[0].migrate(Array(DatabaseActivityLog.migrations.prefix(1)))
                for name in ["bob", ActivityEvent.unknownUser] {
                    try await databases[0].sql.insert(into: "micro_activity").columns("username", "event", "at", "address", "browser", "detail")
                        .values(SQLBind(name), SQLBind("sign_in_failed"), SQLBind(Int64(10_000)), SQLBind("192.0.2.1"), SQLBind("curl"), SQLBind(""))
                        .run()
                }
                async let first: Void = databases[0].migrate(DatabaseActivityLog.migrations)
                async let second: Void = databases[1].migrate(DatabaseActivityLog.migrations)
                _ = try await (first, second)
                let one = DatabaseActivityLog(databases[0], rowLimit: 50, unknownRowLimit: 10)
                let two = DatabaseActivityLog(databases[1], rowLimit: 50, unknownRowLimit: 10)
                #expect(try await two.events(of: nil, offset: 0, limit: 10).map(\.username) == ["bob"])
                #expect(try await two.events(of: ActivityEvent.unknownUser, offset: 0, limit: 10).count == 1)
                // Bob removed: his events are an ended account's; the new bob's are not.
                try await one.endAccount(of: "bob", at: 10_100)
                try await two.record(ActivityEvent(username: "bob", event: "signed_in", at: 10_200, address: "192.0.2.2", browser: "Firefox"))
                let bob = try await one.events(of: "bob", offset: 0, limit: 10)
                #expect(bob.map(\.accountEndedAt) == [nil, 10_100])
                // A flood of unknown names: bounded apart, the accounts' events stay.
                for index in 0..<600 {
                    try await one.record(
                        ActivityEvent(username: ActivityEvent.unknownUser, event: "sign_in_failed", at: 10_300, address: "198.51.100.\(index % 250)", browser: "curl"))
                }
                #expect(try await one.events(of: nil, offset: 0, limit: 100).count == 2)
                #expect(try await one.events(of: ActivityEvent.unknownUser, offset: 0, limit: 10_000).count <= 10 + 500)
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func unkeyedRecoveryCodesAreKeyedOnceByInstancesStartingTogether(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 2) { (databases: [Database]) async throws in
                for database in databases { try await database.migrate(TwoFactorStore.migrations + DataKeyCheck.migrations) }
                let key = DataKey(material: "a key of this test alone, 0123456789abcdef0123")
                let secret = try key.seal(Totp.randomSecret(), context: TwoFactorService.context(of: "user"))
                let codes = RecoveryCodes.make()
                try await TwoFactorStore(databases[0]).enable(
                    "user", sealedSecret: secret, usedStep: 0, codeDigests: codes.map { RecoveryCodes.unkeyedDigest(RecoveryCodes.normalized($0)!, of: "user") },
                    now: 10_000)
                async let first = TwoFactorStore(databases[0]).keyUnkeyedCodes(with: key)
                async let second = TwoFactorStore(databases[1]).keyUnkeyedCodes(with: key)
                #expect(try await first + second == 10)
                let store = TwoFactorStore(databases[1])
                #expect(try await store.useCode(digest: RecoveryCodes.digest(RecoveryCodes.normalized(codes[0])!, of: "user", key: key), of: "user"))
                #expect(try await store.codesLeft(of: "user") == 9)
                // The key is recorded once; another one, with a secret sealed, stops production.
                try await DataKeyCheck(store: store).verify(key, environment: .production, now: 10_000, logger: PostgresTestDatabase.quiet)
                try await DataKeyCheck(store: TwoFactorStore(databases[0])).verify(key, environment: .production, now: 10_000, logger: PostgresTestDatabase.quiet)
                let other = DataKey(material: "another key of this test, 0123456789abcdef0123")
                await #expect(throws: ConfigurationError.self) {
                    try await DataKeyCheck(store: store).verify(other, environment: .production, now: 10_001, logger: PostgresTestDatabase.quiet)
                }
            }
        }
    }
}
