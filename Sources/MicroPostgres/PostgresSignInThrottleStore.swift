#if Postgres
import MicroAuth
import MicroCore

/// The sign-in throttle's counts in PostgreSQL: the store written once for both databases.
public typealias PostgresSignInThrottleStore = DatabaseSignInThrottleStore

extension DatabaseSignInThrottleStore {
    /// The store over `database`'s ``SharedPostgresDatabase/database``.
    public convenience init(_ database: SharedPostgresDatabase) async throws(ConfigurationError) {
        try await self.init(database.database)
    }
}
#endif
