import Micro
import MicroPostgres

/// What `MICRO_DATABASE_URL` selects: users, the sign-in throttle and the revoked sessions in
/// one PostgreSQL database that several instances of the app share.
struct SharedDatabase {
    let database: SharedPostgresDatabase
    let users: PostgresUserStore
    let throttle: DatabaseSignInThrottleStore
    let revocations: PostgresSessionRevocations

    /// The variable's name, in every message about it.
    static let variable = "MICRO_DATABASE_URL"

    /// The database `MICRO_DATABASE_URL` names; nil when it is unset or empty. A bad URL or a
    /// database that cannot be reached is a ``ConfigurationError`` naming the variable.
    static func fromEnvironment(_ variables: [String: String]) async throws(ConfigurationError) -> SharedDatabase? {
        guard let url = variables[variable], !url.isEmpty else { return nil }
        return try await connect(url)
    }

    static func connect(_ url: String) async throws(ConfigurationError) -> SharedDatabase {
        let database: SharedPostgresDatabase
        do throws(ConfigurationError) {
            database = try await SharedPostgresDatabase.connect(url: url)
        } catch {
            throw ConfigurationError("\(variable): \(error.message)")
        }
        do throws(ConfigurationError) {
            return SharedDatabase(
                database: database,
                users: try await PostgresUserStore(database),
                throttle: try await DatabaseSignInThrottleStore(database.database),
                revocations: try await PostgresSessionRevocations(database))
        } catch {
            database.shutdown()
            throw ConfigurationError("\(variable): \(error.message)")
        }
    }
}
