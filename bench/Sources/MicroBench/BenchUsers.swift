import Foundation
import Micro
import MicroPostgres

/// Where MicroBench keeps its users: bench/credentials.yml, or, with `MICRO_DATABASE_URL`, a
/// PostgreSQL database as SampleApp uses it (users, the sign-in throttle and the revoked
/// sessions shared there), holding the same users with the same hashes, copied from the file
/// at start. `MICRO_BENCH_ACCOUNTS` adds the account pages (``installAccounts(in:)``).
enum BenchUsers {
    static func install(in app: App) async throws {
        let file = try YamlUserStore(file: "bench/credentials.yml")
        guard let url = ProcessInfo.processInfo.environment["MICRO_DATABASE_URL"], !url.isEmpty else {
            app.use(Authentication(users: file))
            try await installAccounts(in: app)
            return
        }
        let database = try await SharedPostgresDatabase.connect(url: url)
        let users = try await PostgresUserStore(database)
        for number in 1...file.count {
            guard let stored = try file.find(username: "bench\(number)") else { continue }
            try await users.save(username: stored.user.username, passwordHash: stored.passwordHash, name: nil)
        }
        var authentication = Authentication(users: users)
        authentication.throttleStore = try await PostgresSignInThrottleStore(database)
        app.settings.sessions.revocations = try await PostgresSessionRevocations(database)
        app.use(authentication)
        try await installAccounts(in: app)
    }

    /// With `MICRO_BENCH_ACCOUNTS`, the account pages (``Accounts``), whose session registry
    /// and activity log each sign-in writes to: `memory`, or `sqlite:PATH` for a database file
    /// (made when missing) as SampleApp keeps them. Unset: no account pages.
    static func installAccounts(in app: App) async throws {
        let setting = ProcessInfo.processInfo.environment["MICRO_BENCH_ACCOUNTS"] ?? ""
        switch setting {
        case "":
            return
        case "memory":
            app.use(Accounts())
        case let text where text.hasPrefix("sqlite:") && text.count > 7:
            app.use(Accounts(database: try await Database.sqlite(path: String(text.dropFirst(7)))))
        default:
            throw ConfigurationError("MICRO_BENCH_ACCOUNTS is 'memory' or 'sqlite:PATH', not '\(setting)'.")
        }
    }
}
