import Foundation
import Micro

/// With `MICRO_BENCH_TOKENS=FOLDER` (bench/token-callgrind.sh): the users of
/// bench/credentials.yml copied into a SQLite users table in FOLDER, the account pages with
/// their tables beside it (API tokens on), one API token of bench1 written to FOLDER/token, and
/// `GET /api/me` (a JSON route) that names the signed-in user, whether a session cookie or the
/// token signed the request in.
enum BenchTokens {
    /// Whether this run compares tokens with cookies; then it installs the users itself.
    static var folder: String? {
        ProcessInfo.processInfo.environment["MICRO_BENCH_TOKENS"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static func install(in app: App, folder: String) async throws {
        let file = try YamlUserStore(file: "bench/credentials.yml")
        let users = try SqliteUserStore(path: folder + "/users.db", create: true)
        for number in 1...file.count {
            guard let stored = try file.find(username: "bench\(number)") else { continue }
            try users.save(username: stored.user.username, passwordHash: stored.passwordHash, name: nil)
        }
        var authentication = Authentication(users: users)
        authentication.passwordCost = Password.cost(of: try file.find(username: "bench1")?.passwordHash ?? "") ?? Password.defaultCost
        app.use(authentication)
        let database = try await Database.sqlite(path: folder + "/app.db")
        try await database.migrate(DatabaseApiTokenStore.migrations)
        app.use(Accounts(database: database))
        let secret = ApiTokenSecret.make()
        let now = Int64(Date().timeIntervalSince1970)
        let token = ApiToken(
            id: "bench", digest: ApiTokenSecret.digest(of: secret), username: "bench1", name: "bench", createdAt: now, expiresAt: now + 86_400)
        guard try await DatabaseApiTokenStore(database).add(token, limit: ApiTokenLimits.perUser, now: now) else {
            throw ConfigurationError("MICRO_BENCH_TOKENS: \(folder) already holds a token named bench: give an empty folder.")
        }
        try secret.write(toFile: folder + "/token", atomically: true, encoding: .utf8)
        app.group("/api", answers: .json) { api in
            api.get("/me") { request in ["user": try request.authenticate().username] }
        }
    }
}
