import Foundation
import Micro
import MicroPostgres

/// A database of its own for one test in the PostgreSQL cluster `MICRO_TEST_DATABASE_URL`
/// names (`Tests/Postgres/with-postgres.sh` at the repository's root starts one), dropped at
/// the end; none without that variable.
struct PostgresTestDatabase {
    let url: String
    private let name: String
    private let cluster: SharedPostgresDatabase

    /// A new, empty database, or nil when the variable is unset.
    static func make() async throws -> PostgresTestDatabase? {
        guard let base = ProcessInfo.processInfo.environment["MICRO_TEST_DATABASE_URL"], !base.isEmpty,
            var components = URLComponents(string: base)
        else { return nil }
        let cluster = try await SharedPostgresDatabase.connect(url: base)
        let name = "notes_test_\(UInt64.random(in: 0 ... .max))"
        do {
            try await Database.postgres(cluster).sql.raw("CREATE DATABASE \(unsafeRaw: name)").run()
        } catch {
            cluster.shutdown()
            throw error
        }
        components.path = "/" + name
        return PostgresTestDatabase(url: components.string ?? base, name: name, cluster: cluster)
    }

    /// Drops it, ending its connections.
    func drop() async {
        try? await Database.postgres(cluster).sql.raw("DROP DATABASE IF EXISTS \(unsafeRaw: name) WITH (FORCE)").run()
        cluster.shutdown()
    }
}
