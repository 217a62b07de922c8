// The account pages as `import Micro` gives them: with Micro's two features, as an app that
// imports the whole framework expects, without naming them.
extension Accounts {
    /// Micro's features of the account pages: two-factor sign-in, then passkeys (which answer
    /// its step too).
    public static var builtInFeatures: [any AccountFeature] { [TwoFactorSettings(), PasskeySettings()] }

    /// The pages with sessions and events kept in this process (lost at restart), for a users
    /// file or one instance, with two-factor sign-in and passkeys (which need a database: their
    /// pages say so).
    public init() {
        self.init(features: Self.builtInFeatures)
    }

    /// The pages with sessions and events kept in `database`, shared by every instance that
    /// uses it, with two-factor sign-in and passkeys.
    public init(database: Database) {
        self.init(database: database, features: Self.builtInFeatures)
    }

    /// The pages keeping their state in `stores`' database (MicroPostgres' `AppStores`), with
    /// two-factor sign-in and passkeys.
    public init(stores: some AppDatabaseSource) {
        self.init(stores: stores, features: Self.builtInFeatures)
    }
}
