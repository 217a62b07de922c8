import Micro
import MicroTestSupport
import Testing

/// What `import Micro` gives an app: the account pages with two-factor sign-in, then passkeys,
/// from each of its three ways to make them, as before the features became modules.
@Suite struct BuiltInFeaturesTests {
    private struct Stores: AppDatabaseSource {
        let database: Database
    }

    private func kinds(_ accounts: Accounts) -> [String] {
        accounts.features.map { String(describing: type(of: $0)) }
    }

    @Test func everyWayToMakeTheAccountPagesHasBothFeaturesInOrder() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Database.sqlite(path: folder.file("app.db"))
        let expected = ["TwoFactorSettings", "PasskeySettings"]
        #expect(kinds(Accounts()) == expected)
        #expect(kinds(Accounts(database: database)) == expected)
        #expect(kinds(Accounts(stores: Stores(database: database))) == expected)
        #expect(kinds(Accounts(database: database, features: [])).isEmpty)
        await database.shutdown()
    }
}
