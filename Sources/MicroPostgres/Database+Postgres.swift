#if Postgres
import Foundation
import MicroCore

extension Database {
    /// The app's database from one setting: PostgreSQL when `MICRO_DATABASE_URL` is set (several
    /// instances share it), else the SQLite file `file` (one instance), created when missing.
    ///
    /// ```swift
    /// let database = try await Database.open(file: "notes.db")
    /// ```
    public static func open(
        file: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws(ConfigurationError) -> Database {
        guard let url = environment["MICRO_DATABASE_URL"], !url.isEmpty else {
            return try await sqlite(path: file)
        }
        do throws(ConfigurationError) {
            return try await SharedPostgresDatabase.connect(url: url).database
        } catch {
            throw ConfigurationError("MICRO_DATABASE_URL: \(error.message)")
        }
    }

    /// The database `shared` reaches, with its pool and outage handling.
    public static func postgres(_ shared: SharedPostgresDatabase) -> Database {
        shared.database
    }
}
#endif
