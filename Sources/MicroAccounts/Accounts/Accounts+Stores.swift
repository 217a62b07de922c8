import MicroCore

extension Accounts {
    /// The account pages, keeping their sessions, events, tokens and what `features` keep in
    /// `stores`' database (MicroPostgres' `AppStores`).
    public init(stores: some AppDatabaseSource, features: [any AccountFeature]) {
        self.init(database: stores.database, features: features)
    }
}
