import Foundation
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// A SQLite users database that is missing, locked by another writer, read-only or corrupt: a
/// clear error at start-up; at sign-in time a 503 page (never a 500), and sign-in works again
/// as soon as the fault is gone.
@Suite struct SqliteFaultTests {
    /// `users.db` in `folder`, holding user / secret123 and ann / ann-password.
    private func makeDatabase(in folder: TemporaryFolder) throws -> String {
        _ = try UserStoreKind.sqlite.make(in: folder)
        return folder.file("users.db")
    }

    /// An app signing people in against `store`.
    private func makeApp(_ store: SqliteUserStore) -> App {
        let app = isolatedApp()
        var authentication = Authentication(users: store)
        authentication.hasher = PasswordHasher(threads: 1)
        // The test hashes' own cost: a sign-in has nothing to re-hash, and the store only reads.
        authentication.passwordCost = 4
        app.use(authentication)
        app.get("/") { _ in "home" }
        return app
    }

    /// One sign-in, from a new browser.
    private func signIn(_ app: App, _ username: String = "user", _ password: String = "secret123") async throws -> TestResponse {
        try await TestClient(app).post("/signin", form: ["username": username, "password": password])
    }

    /// Expects the sign-in to have been refused with the 503 page, and nothing about the file.
    private func expectUnavailable(_ response: TestResponse, path: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == .serviceUnavailable, sourceLocation: sourceLocation)
        #expect(response.text.contains("Sign-in is unavailable right now. Please try again in a minute."), sourceLocation: sourceLocation)
        #expect(response.headers.first(name: "Retry-After") == "60", sourceLocation: sourceLocation)
        #expect(!response.text.contains(path), sourceLocation: sourceLocation)
    }

    /// The message of the error a look-up throws now.
    private func lookUpError(_ store: SqliteUserStore) -> String? {
        do {
            _ = try store.find(username: "user")
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// The message of the error opening `path` throws.
    private func openingError(_ path: String, busyTimeout: Duration = .seconds(2)) -> String? {
        do {
            _ = try SqliteUserStore(path: path, busyTimeout: busyTimeout)
            return nil
        } catch {
            return error.message
        }
    }

    /// Replaces what the file holds, keeping the file (as a faulty disk or a stray write would).
    private func overwrite(_ path: String, with data: Data) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: data)
        try handle.close()
    }

    @Test func faultsAtStartUpNameTheFileAndWhatIsWrong() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try makeDatabase(in: folder)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))

        #expect(openingError(folder.file("missing.db")) == "\(folder.file("missing.db")): no such users database.")

        try Data(repeating: 0x41, count: original.count).write(to: URL(fileURLWithPath: folder.file("garbage.db")))
        #expect(openingError(folder.file("garbage.db"))?.hasPrefix("\(folder.file("garbage.db")): not a SQLite database") == true)

        try original.prefix(4096).write(to: URL(fileURLWithPath: folder.file("truncated.db")))
        #expect(openingError(folder.file("truncated.db"))?.hasPrefix("\(folder.file("truncated.db")): the users database is corrupt") == true)

        try Data().write(to: URL(fileURLWithPath: folder.file("empty.db")))
        #expect(openingError(folder.file("empty.db"))?.hasPrefix("\(folder.file("empty.db")): no usable `users` table") == true)

        let writer = try await SqliteWriter(lockingFile: path)
        #expect(openingError(path, busyTimeout: .milliseconds(50))?.hasPrefix("\(path): the users database is locked by another connection (waited 50 ms)") == true)
        try await writer.release()
        #expect(openingError(path) == nil)
    }

    @Test func aReadOnlyDatabaseServesSignIns() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try makeDatabase(in: folder)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let store = try SqliteUserStore(path: path)
        let app = makeApp(store)
        #expect(try await signIn(app).location == "/")

        // Made read-only while the app runs, file and folder (no journal could be created).
        #expect(chmod(path, 0o444) == 0 && chmod(folder.path, 0o555) == 0)
        defer { _ = chmod(folder.path, 0o755) }
        #expect(try await signIn(app).location == "/")
        #expect(try await signIn(app, "ann", "wrong").location == "/signin")
        // Opened afresh on the read-only file, as at a restart.
        try app.reload()
        #expect(try await signIn(app, "ann", "ann-password").location == "/")
        #expect(try SqliteUserStore(path: path).count() == 2)

        // The store only read: the same bytes, and nothing beside the file.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["users.db"])
    }

    @Test func aBriefLockIsWaitedOut() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try makeDatabase(in: folder)
        // A timeout far beyond what the test waits: the look-up must wait, not fail.
        let store = try SqliteUserStore(path: path, busyTimeout: .seconds(60))
        let app = makeApp(store)
        let writer = try await SqliteWriter(lockingFile: path)
        // The writer finishes a moment after the sign-in began: a look-up that did not wait
        // for its lock would have answered 503 by then.
        let release = Task {
            try await Task.sleep(for: .milliseconds(300))
            try await writer.release()
        }
        #expect(try await signIn(app).location == "/")
        try await release.value
    }

    @Test func aLongLockAnswers503AndTheFirstSignInAfterItWorks() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try makeDatabase(in: folder)
        let store = try SqliteUserStore(path: path, busyTimeout: .milliseconds(100))
        let app = makeApp(store)
        let writer = try await SqliteWriter(lockingFile: path)
        // More attempts than the throttle allows for a username: the server's fault does not count.
        for _ in 0..<6 {
            expectUnavailable(try await signIn(app), path: path)
        }
        // The same answer for a username that does not exist.
        expectUnavailable(try await signIn(app, "nobody", "guess"), path: path)
        #expect(lookUpError(store)?.hasPrefix("\(path): the users database is locked by another connection (waited 100 ms)") == true)
        try await writer.release()
        #expect(try await signIn(app).location == "/")
    }

    @Test func aDatabaseMovedAwayAnswers503UntilAFileIsBack() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try makeDatabase(in: folder)
        let store = try SqliteUserStore(path: path)
        let app = makeApp(store)
        #expect(try await signIn(app).location == "/")

        try FileManager.default.moveItem(atPath: path, toPath: path + ".moved")
        expectUnavailable(try await signIn(app), path: path)
        #expect(lookUpError(store) == "\(path): the users database is missing (moved or deleted?).")
        try FileManager.default.moveItem(atPath: path + ".moved", toPath: path)
        #expect(try await signIn(app).location == "/")

        // Another database put in its place (a restored backup, say) is the one read from then on.
        let other = try SqliteUserStore(path: folder.file("other.db"), create: true)
        try other.save(username: "zed", passwordHash: TestHashes.secret123, name: nil)
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: folder.file("other.db"), toPath: path)
        #expect(try await signIn(app, "zed").location == "/")
        #expect(try await signIn(app).location == "/signin")
    }

    @Test func aCorruptDatabaseAnswers503UntilItIsRepaired() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try makeDatabase(in: folder)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let store = try SqliteUserStore(path: path)
        let app = makeApp(store)
        #expect(try await signIn(app).location == "/")

        try overwrite(path, with: Data(repeating: 0x41, count: original.count))
        expectUnavailable(try await signIn(app), path: path)
        #expect(lookUpError(store)?.hasPrefix("\(path): not a SQLite database") == true)
        try overwrite(path, with: original)
        #expect(try await signIn(app).location == "/")

        // Cut short: the header is intact, the table is gone.
        try overwrite(path, with: original.prefix(4096))
        expectUnavailable(try await signIn(app), path: path)
        #expect(lookUpError(store)?.hasPrefix("\(path): the users database is corrupt") == true)
        try overwrite(path, with: original)
        #expect(try await signIn(app, "ann", "ann-password").location == "/")
    }
}
