import Foundation
import Micro
import MicroPostgres

/// Where MicroBench keeps its users: bench/credentials.yml, or, with `MICRO_DATABASE_URL`, a
/// PostgreSQL database as SampleApp uses it (users, the sign-in throttle and the revoked
/// sessions shared there), holding the same users with the same hashes, copied from the file
/// at start.
enum BenchUsers {
    static func install(in app: App) async throws {
        let file = try YamlUserStore(file: "bench/credentials.yml")
        guard let url = ProcessInfo.processInfo.environment["MICRO_DATABASE_URL"], !url.isEmpty else {
            app.use(Authentication(users: file))
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
    }
}
