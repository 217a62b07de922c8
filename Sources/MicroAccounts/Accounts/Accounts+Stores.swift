import MicroCore

extension Accounts {
    /// The account pages, keeping their sessions, events, tokens and second factors in
    /// `stores`' database (MicroPostgres' `AppStores`).
    public init(stores: some AppDatabaseSource) {
        self.init(database: stores.database)
    }
}
