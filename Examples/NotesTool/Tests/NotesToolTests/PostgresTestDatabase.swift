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
            let components = URLComponents(string: base)
        else { return nil }
        return try await ClusterChanges.oneAtATime { try await make(in: base, components) }
    }

    private static func make(in base: String, _ components: URLComponents) async throws -> PostgresTestDatabase {
        var components = components
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
        let (cluster, name) = (cluster, name)
        try? await ClusterChanges.oneAtATime {
            try? await Database.postgres(cluster).sql.raw("DROP DATABASE IF EXISTS \(unsafeRaw: name) WITH (FORCE)").run()
            cluster.shutdown()
        }
    }
}

/// The tests' changes to the cluster (connecting to its first database, which prepares Micro's
/// tables there, and creating or dropping a test's database), one at a time in this process:
/// run side by side, PostgreSQL refused one of them ("tuple concurrently updated").
enum ClusterChanges {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var last: Task<Void, Never>?

    static func oneAtATime<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let task: Task<T, any Error> = lock.withLock {
            let before = last
            let task = Task { () async throws -> T in
                await before?.value
                return try await body()
            }
            last = Task { _ = try? await task.value }
            return task
        }
        return try await task.value
    }
}
