import Foundation
import MicroAuth
@testable import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// credentials.yml edited while the app runs: `app.reload()` (what SIGHUP calls) picks up the
/// edit; a broken edit is reported with its file and line and the last good users stay.
@Suite struct UserReloadTests {
    private func users(_ entries: [(String, String)]) -> String {
        "users:\n" + entries.map { "  - username: \($0.0)\n    password_hash: \"\($0.1)\"\n" }.joined()
    }

    private func makeApp(_ store: any UserStore) -> App {
        let app = isolatedApp()
        var authentication = Authentication(users: store)
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        return app
    }

    /// Where one sign-in, from a new browser, lands: `/` when it worked, `/signin` when not.
    private func signIn(_ app: App, _ username: String, _ password: String) async throws -> String? {
        try await TestClient(app).post("/signin", form: ["username": username, "password": password]).location
    }

    @Test func anEditedFileIsPickedUpOnReload() async throws {
        let folder = try TemporaryFolder(["credentials.yml": seedCredentials])
        defer { folder.remove() }
        let store = try YamlUserStore(file: folder.file("credentials.yml"))
        let app = makeApp(store)
        #expect(try await signIn(app, "user", "secret123") == "/")
        #expect(try await signIn(app, "ann", "ann-password") == "/signin")

        try folder.write("credentials.yml", users([("ann", TestHashes.annPassword)]))
        // Nothing changes before the reload: the file is read when asked to.
        #expect(try await signIn(app, "ann", "ann-password") == "/signin")
        try app.reload()
        #expect(try await signIn(app, "ann", "ann-password") == "/")
        #expect(try await signIn(app, "user", "secret123") == "/signin")
        #expect(store.reloadSummary == "users from \(folder.file("credentials.yml")) (1 user)")
    }

    @Test func aBrokenEditKeepsTheLastGoodUsersAndSaysWhere() async throws {
        let folder = try TemporaryFolder(["credentials.yml": users([("user", TestHashes.secret123), ("ann", TestHashes.annPassword)])])
        defer { folder.remove() }
        let file = folder.file("credentials.yml")
        let app = makeApp(try YamlUserStore(file: file))

        let broken: [(String, String)] = [
            ("users:\n  - username: zed\n    password_hash: [unclosed\n", "\(file):3: malformed YAML"),
            ("users:\n  - username: zed\n    password_hash: not-a-hash\n", "\(file):3: the password_hash of user 'zed' is not a bcrypt hash"),
            ("users:\n  - name: Zed\n", "\(file):2: missing key `username`"),
        ]
        for (text, expected) in broken {
            try folder.write("credentials.yml", text)
            do {
                try app.reload()
                Issue.record("no error for: \(text)")
            } catch {
                #expect(error.message.hasPrefix(expected), "\(error.message)")
            }
            #expect(try await signIn(app, "user", "secret123") == "/")
            #expect(try await signIn(app, "ann", "ann-password") == "/")
        }
        try FileManager.default.removeItem(atPath: file)
        #expect(throws: ConfigurationError.self) { try app.reload() }
        #expect(try await signIn(app, "ann", "ann-password") == "/")
    }

    @Test func authenticationRegistersAReloadableStoreOnce() throws {
        let folder = try TemporaryFolder(["credentials.yml": seedCredentials])
        defer { folder.remove() }
        let store = try YamlUserStore(file: folder.file("credentials.yml"))
        let app = makeApp(store)
        app.addReloadable(store)
        #expect(app.reloadables.count == 1)
        #expect(app.reloadables.first === store)

        // A store that cannot reload is not registered, and reloading nothing is no error.
        let fixed = makeApp(FixedUsers())
        #expect(fixed.reloadables.isEmpty)
        try fixed.reload()
    }

    @Test func oneBrokenSourceDoesNotStopTheOthersFromReloading() throws {
        let folder = try TemporaryFolder(["a.yml": seedCredentials, "b.yml": seedCredentials])
        defer { folder.remove() }
        let first = try YamlUserStore(file: folder.file("a.yml"))
        let second = try YamlUserStore(file: folder.file("b.yml"))
        let app = isolatedApp()
        app.addReloadable(first)
        app.addReloadable(second)
        try folder.write("a.yml", "username: [broken\n")
        try folder.write("b.yml", users([("ann", TestHashes.annPassword), ("zed", TestHashes.secret123)]))
        do {
            try app.reload()
            Issue.record("no error for a.yml")
        } catch {
            #expect(error.message.hasPrefix("\(folder.file("a.yml")):1: malformed YAML"))
            #expect(!error.message.contains("b.yml"))
        }
        #expect(try first.find(username: "user") != nil)
        #expect(second.count == 2)
    }
}

/// A store that holds one user and cannot reload.
private struct FixedUsers: UserStore {
    func find(username: String) throws -> StoredUser? {
        username == "user" ? StoredUser(user: User(username: "user"), passwordHash: TestHashes.secret123) : nil
    }
}
