import Foundation
import Micro
import MicroPostgres
import Testing

/// The databases a store's test runs against: SQLite always, PostgreSQL when
/// `MICRO_TEST_DATABASE_URL` names a test server (`with-postgres.sh` sets it).
enum TestDatabaseKind: String, CustomTestStringConvertible, Sendable {
    case sqlite, postgres

    /// SQLite, and PostgreSQL when a test server is configured.
    static let available: [TestDatabaseKind] = PostgresTestDatabase.available ? [.sqlite, .postgres] : [.sqlite]

    var testDescription: String { rawValue }

    /// Runs `body` with `instances` databases of this kind over one new, empty store (a file,
    /// a PostgreSQL database), as that many instances of an app would see it; then closes them
    /// and removes the store, whatever happened.
    func with(instances: Int = 1, _ body: ([Database]) async throws -> Void) async throws {
        switch self {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-data-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            var databases: [Database] = []
            for _ in 0..<instances { databases.append(try await Database.sqlite(path: folder.appendingPathComponent("app.db").path)) }
            do { try await body(databases) } catch {
                for database in databases { await database.shutdown() }
                throw error
            }
            for database in databases { await database.shutdown() }
        case .postgres:
            try await PostgresTestDatabase.withShared(instances) { shared in
                try await body(shared.map(\.database))
            }
        }
    }
}

extension PostgresTestDatabase {
    /// Runs `body` on `count` connections (as instances) to a new database, then drops it.
    static func withShared(_ count: Int, _ body: ([SharedPostgresDatabase]) async throws -> Void) async throws {
        let test = try await make()
        var shared: [SharedPostgresDatabase] = []
        do {
            for _ in 0..<count { shared.append(try await SharedPostgresDatabase.connect(url: test.url, queryTimeout: .seconds(2), logger: quiet)) }
            try await body(shared)
        } catch {
            for database in shared { database.shutdown() }
            await test.drop()
            throw error
        }
        for database in shared { database.shutdown() }
        await test.drop()
    }
}
