import Foundation
import Logging
import Micro
import MicroPostgres
import MicroTestSupport
import MicroTesting
import PostgresNIO
import Testing

/// A database of its own for one test, in the cluster `Tests/Postgres/with-postgres.sh`
/// started (`MICRO_TEST_DATABASE_URL`), dropped at the end.
struct PostgresTestDatabase {
    static let url = ProcessInfo.processInfo.environment["MICRO_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    /// The tests run only against a real PostgreSQL.
    static let available = url != nil
    static let skipNote: Comment = "MICRO_TEST_DATABASE_URL is unset: run `bash Tests/Postgres/with-postgres.sh swift test --filter MicroPostgresTests`"

    let name: String
    let url: String

    /// A new empty database.
    static func make() async throws -> PostgresTestDatabase {
        let base = try #require(Self.url)
        let name = "micro_test_\(UInt64.random(in: 0 ... .max))"
        try await admin(base) { try await $0.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: Self.quiet) }
        var components = try #require(URLComponents(string: base))
        components.path = "/" + name
        return PostgresTestDatabase(name: name, url: try #require(components.string))
    }

    /// Runs `body` on a new database and `count` instances' stores connected to it, then shuts
    /// the instances down and drops the database, whatever happened.
    static func withInstances(
        _ count: Int, logger: Logger = PostgresTestDatabase.quiet, _ body: (PostgresTestDatabase, [SharedStores]) async throws -> Void
    ) async throws {
        let test = try await make()
        var instances: [SharedStores] = []
        do {
            for _ in 0..<count { instances.append(try await SharedStores.connect(test.url, logger: logger)) }
            try await body(test, instances)
        } catch {
            for instance in instances { instance.database.shutdown() }
            await test.drop()
            throw error
        }
        for instance in instances { instance.database.shutdown() }
        await test.drop()
    }

    /// Drops it (and ends its connections).
    func drop() async {
        guard let base = Self.url else { return }
        try? await Self.admin(base) { try await $0.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: Self.quiet) }
    }

    /// Runs plain SQL in it, as another program would.
    func sql(_ statement: String) async throws {
        try await Self.admin(url) { try await $0.query(PostgresQuery(unsafeSQL: statement), logger: Self.quiet) }
    }

    private static func admin(_ url: String, _ work: (PostgresConnection) async throws -> Void) async throws {
        let parsed = try PostgresUrl(url)
        let connection = try await PostgresConnection.connect(
            configuration: PostgresConnection.Configuration(
                host: parsed.host, port: parsed.port, username: parsed.username, password: parsed.password,
                database: parsed.database, tls: .disable),
            id: 1, logger: Self.quiet)
        defer { Task { try? await connection.close() } }
        try await work(connection)
    }

    static let quiet = Logger(label: "micro.test.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
}

/// Everything an instance of the app keeps in the shared database.
struct SharedStores {
    let database: SharedPostgresDatabase
    let users: PostgresUserStore
    let throttle: PostgresSignInThrottleStore
    let revocations: PostgresSessionRevocations

    static func connect(_ url: String, logger: Logger = PostgresTestDatabase.quiet) async throws -> SharedStores {
        let database = try await SharedPostgresDatabase.connect(url: url, queryTimeout: .seconds(2), logger: logger)
        return SharedStores(
            database: database, users: try await PostgresUserStore(database),
            throttle: try await PostgresSignInThrottleStore(database), revocations: try await PostgresSessionRevocations(database))
    }

    /// An instance of an app over these stores: `/me` says who is signed in.
    func makeApp() -> App {
        var settings = Settings()
        settings.environment = .test
        settings.accessLog = false
        settings.port = 0
        settings.views = nil
        settings.sessions.revocations = revocations
        let app = App(settings: settings, logger: PostgresTestDatabase.quiet)
        var authentication = Authentication(users: users)
        authentication.throttleStore = throttle
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        app.get("/me") { request in request.currentUser?.username ?? "nobody" }
        return app
    }
}

/// Two instances over a database of their own holding `user` (secret123), ended and dropped
/// after, whatever happened.
func withTwoInstances(_ body: (_ one: SharedStores, _ two: SharedStores, _ test: PostgresTestDatabase) async throws -> Void) async throws {
    try await PostgresTestDatabase.withInstances(2) { test, instances in
        try await instances[0].users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
        try await body(instances[0], instances[1], test)
    }
}

/// Waits, a little at a time, until `condition` holds: at most `limit`. What the tests wait for
/// (a change seen by another instance) is promised within 5 seconds.
func eventually(within limit: Duration = .seconds(5), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
}

/// Signs in through `client`; whether it worked.
func signIn(_ client: TestClient, _ username: String = "user", _ password: String = "secret123") async throws -> TestResponse {
    try await client.post("/signin", form: ["username": username, "password": password])
}

/// Every test against the real PostgreSQL, one at a time: one of them stops the server. Each
/// suite that needs the server is enabled only with one; the stores' tests over both databases
/// run their SQLite half without. A test that hangs (a lock, a pool that never hands out a
/// connection) fails by its name within the time limit rather than holding CI until its step's.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct MicroPostgresTests {}
