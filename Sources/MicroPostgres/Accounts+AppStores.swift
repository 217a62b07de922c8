#if Postgres
import Micro

extension Accounts {
    /// The account pages, keeping their sessions, events, tokens and second factors in
    /// `stores`' database.
    public init(stores: AppStores) {
        self.init(database: stores.database)
    }
}
#endif
