import Foundation
import Micro
import MicroPostgres
import MicroTesting
@testable import NotesToolApp
import Testing

/// The example's users: lead (an admin, who must use a second factor) and oncall.
let passwords = ["lead": "lead-secret", "oncall": "oncall-secret"]

/// Runs `body` with a notes tool over a database of its own, holding the example's users: a
/// SQLite file in a new folder or, when `MICRO_TEST_DATABASE_URL` is set (the PostgreSQL run,
/// `Tests/Postgres/with-postgres.sh`), a new database in that cluster. Everything is closed
/// and removed after, whatever happened.
func withNotesTool(_ body: (App, AppStores) async throws -> Void) async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("notes-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    var environment: [String: String] = [:]
    let postgres = try await PostgresTestDatabase.make()
    if let postgres { environment[AppStores.urlVariable] = postgres.url }
    let stores = try await AppStores.open(file: folder.appendingPathComponent("notes.db").path, environment: environment)
    do {
        let users = try #require(stores.users as? any UserTableStore)
        for (username, password) in passwords {
            _ = try await users.addUser(
                username: username, name: username.capitalized, roles: username == "lead" ? ["admin"] : [],
                passwordHash: try Password.hash(password, cost: 4))
        }
        try await body(makeApp(App(settings: notesSettings()), stores: stores), stores)
    } catch {
        await stores.shutdown()
        await postgres?.drop()
        throw error
    }
    await stores.shutdown()
    await postgres?.drop()
}

extension TestClient {
    /// Signs in as one of the example's users, with a code when `secret` (their second
    /// factor's) is given.
    func signIn(_ username: String, secret: String? = nil) async throws {
        if let secret {
            // The step after the one that turned it on: a code is good once.
            try await signIn(username, passwords[username]!, code: code(secret, stepsAhead: 1))
        } else {
            try await signIn(username, passwords[username]!)
        }
    }

    /// Signs the admin lead in, turning two-factor on first (admins must): lead's secret.
    func signInAsLead() async throws -> String {
        try await signIn("lead")
        let setup = try await turnOnTwoFactor(password: passwords["lead"]!) { code($0) }
        return setup.secret
    }
}

/// The code an authenticator shows for `secret` now, or `stepsAhead` periods of 30 s later.
func code(_ secret: String, stepsAhead: Int64 = 0) -> String {
    Totp(secret: Base32.decode(secret) ?? []).code(at: Int64(Date().timeIntervalSince1970) + 30 * stepsAhead)
}

/// The settings the tests' apps start with, with the example's own views wherever the tests run
/// from: the example's folder, or Micro's package root, which builds the example too.
func notesSettings() -> Settings {
    var settings = Settings()
    settings.environment = .test
    settings.accessLog = false
    settings.views = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("views").path
    return settings
}
