import Foundation
import Micro
import MicroPasskeys
import MicroPostgres
import MicroTestSupport
import MicroTesting
@testable import SampleApp
import Testing

/// `SampleApp hash-password`, `add-user` and `remove-user`, run as a person would, with the password piped in.
@Suite struct CommandTests {
    /// Runs SampleApp with `arguments` and `input`; its status, standard output and standard
    /// error (read to a file, so that neither pipe can fill while the other is read).
    private func run(_ arguments: [String], input: String) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = try SampleAppProcess.binary()
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("micro-cli-error-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "")
    }

    @Test func hashPasswordPrintsAHashForCredentialsYml() throws {
        let result = try run(["hash-password", "--cost", "4"], input: "s3cret\n")
        #expect(result.status == 0)
        let hash = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(hash.hasPrefix("$2b$04$"))
        #expect(Password.verify("s3cret", against: hash))
        #expect(try run(["hash-password"], input: "").status != 0)
    }

    @Test func routesListsWhatTheSampleAppDoesWithARequest() throws {
        let result = try run(["routes"], input: "")
        #expect(result.status == 0)
        #expect(result.output.contains("SampleApp/SampleRoutes.swift:"), "\(result.output)")
        #expect(result.output.contains("MicroAuth/Authentication+Steps.swift:"))
    }

    @Test func addUserAndRemoveUserChangeTheSqliteUsersTable() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("users.db").path
        let result = try run(["add-user", "Carol", "--db", database, "--name", "Carol C", "--role", "admin", "--role", "ops", "--cost", "4"], input: "pw-carol\n")
        #expect(result.status == 0)
        let store = try SqliteUserStore(path: database)
        let carol = try #require(try store.find(username: "carol"))
        #expect(carol.user.name == "Carol C")
        #expect(carol.user.roles == ["admin", "ops"])
        #expect(try run(["add-user", "Dan", "--db", database, "--role", "Admin!", "--cost", "4"], input: "pw\n").status != 0)
        #expect(try run(["add-user", "Dan", "--db", database, "--role", "ops,Admin!", "--cost", "4"], input: "pw-dan-1\n").status != 0)
        // A comma list is several roles, as repeating the option is.
        #expect(try run(["add-user", "Erin", "--db", database, "--role", "admin,ops", "--role", "ops, audit", "--cost", "4"], input: "pw-erin-1\n").status == 0)
        #expect(try #require(try store.find(username: "erin")).user.roles == ["admin", "ops", "audit"])
        #expect(Password.verify("pw-carol", against: carol.passwordHash))

        // A token of hers, kept beside the users as `serve` keeps it: removing her takes it.
        let tables = try await Database.sqlite(path: database)
        try await tables.migrate(DatabaseApiTokenStore.migrations)
        let now = Int64(Date().timeIntervalSince1970)
        let token = ApiToken(id: "t1", digest: "d1", username: "carol", name: "cron", createdAt: now, expiresAt: now + 3600)
        #expect(try await DatabaseApiTokenStore(tables).add(token, limit: 50, now: now))
        // A session of hers listed, and an event: the session goes, the event stays as an ended account's.
        try await tables.migrate(DatabaseSessionRegistry.migrations + DatabaseActivityLog.migrations)
        _ = try await DatabaseSessionRegistry(tables).add(RegisteredSession(
            entry: SessionEntry(id: "e1", username: "carol", browser: "Firefox", userAgent: "", address: "192.0.2.7", signedInAt: now, lastSeenAt: now),
            sessionId: "s1", expiresAt: now + 3600))
        try await DatabaseActivityLog(tables).record(ActivityEvent(username: "carol", event: "signed_in", at: now, address: "192.0.2.7", browser: "Firefox"))
        await tables.shutdown()

        let removed = try run(["remove-user", "CAROL", "--db", database], input: "")
        #expect(removed.status == 0)
        #expect(removed.output.contains("Removed user 'carol' from \(database)"))
        #expect(try store.find(username: "carol") == nil)
        let after = try await Database.sqlite(path: database)
        #expect(try await DatabaseApiTokenStore(after).token(digest: "d1") == nil)
        #expect(try await DatabaseSessionRegistry(after).sessions(of: "carol", now: now, idle: 600, lifetime: 3600).isEmpty)
        #expect(try await DatabaseActivityLog(after).events(of: "carol", offset: 0, limit: 10).map { $0.accountEndedAt != nil } == [true])
        await after.shutdown()
        #expect(try run(["remove-user", "carol", "--db", database], input: "").status != 0)
        // A file that is not there is not created by remove-user.
        let missing = folder.appendingPathComponent("none.db").path
        #expect(try run(["remove-user", "carol", "--db", missing], input: "").status != 0)
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test func addUserOverAUserEndsTheirTokensAndPasskeysAsTheUsersPagesSetPasswordDoes() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("users.db").path
        #expect(try run(["add-user", "dora", "--db", database, "--cost", "4"], input: "a first long phrase\n").status == 0)
        // A token and a passkey of hers, and a listed session, kept beside the users as `serve` keeps them.
        let tables = try await Database.sqlite(path: database)
        try await tables.migrate(DatabaseApiTokenStore.migrations + PasskeyStore.migrations + DatabaseSessionRegistry.migrations)
        let now = Int64(Date().timeIntervalSince1970)
        #expect(try await DatabaseApiTokenStore(tables).add(
            ApiToken(id: "t1", digest: "d1", username: "dora", name: "cron", createdAt: now, expiresAt: now + 3600), limit: 50, now: now))
        let key = PasskeyPublicKey(algorithm: .es256, bytes: Array(repeating: 7, count: 64))
        let passkey = Passkey(
            credentialId: [1, 2, 3], username: "dora", userHandle: Array(repeating: 1, count: 32), name: "Not hers", publicKey: key, signCount: 0,
            backupEligible: false, createdAt: now)
        #expect(try await PasskeyStore(tables).add(passkey, limit: 10) == .added)
        _ = try await DatabaseSessionRegistry(tables).add(RegisteredSession(
            entry: SessionEntry(id: "e1", username: "dora", browser: "Firefox", userAgent: "", address: "192.0.2.7", signedInAt: now, lastSeenAt: now),
            sessionId: "s1", expiresAt: now + 3600))
        await tables.shutdown()

        let replaced = try run(["add-user", "Dora", "--db", database, "--cost", "4"], input: "a second long phrase\n")
        #expect(replaced.status == 0)
        #expect(replaced.output.contains("their sessions, API tokens and passkeys end"), "\(replaced.output)")
        let after = try await Database.sqlite(path: database)
        #expect(try await DatabaseApiTokenStore(after).token(digest: "d1") == nil)
        #expect(try await PasskeyStore(after).passkeys(of: "dora").isEmpty)
        #expect(try await DatabaseSessionRegistry(after).sessions(of: "dora", now: now, idle: 600, lifetime: 3600).isEmpty)
        let events = try await DatabaseActivityLog(after).events(of: "dora", offset: 0, limit: 10).map { "\($0.event): \($0.detail)" }
        #expect(Set(events) == ["token_revoked: all 1, by add-user", "passkey_removed: all 1, by add-user"])
        await after.shutdown()
    }

    @Test func addUserKeepsAnAddressAndMarksAPasswordTypedOverAnotherUsersToBeChanged() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("users.db").path
        // The first admin, and her own password typed again: nobody else knows either.
        #expect(try run(["add-user", "ann", "--db", database, "--role", "admin", "--cost", "4"], input: "a first long phrase\n").status == 0)
        #expect(try run(["add-user", "ann", "--db", database, "--role", "admin", "--cost", "4"], input: "a first long phrase 2\n").status == 0)
        let bad = try run(["add-user", "bob", "--db", database, "--email", "bob@example.com\r\nBcc: eve@example.com", "--cost", "4"], input: "bob's first phrase\n")
        #expect(bad.status != 0 && bad.error.contains("--email: an email address cannot hold a control character (U+000D)"), "\(bad.error)")
        #expect(try run(["add-user", "bob", "--db", database, "--email", "Bob@Example.com", "--cost", "4"], input: "bob's first phrase\n").status == 0)
        let taken = try run(["add-user", "carl", "--db", database, "--email", "BOB@example.com", "--cost", "4"], input: "carl's first phrase\n")
        #expect(taken.status != 0 && taken.error.contains("--email: BOB@example.com is the address of user 'bob'"), "\(taken.error)")
        // Bob's password typed by the operator over his own: his to change.
        #expect(try run(["add-user", "bob", "--db", database, "--cost", "4"], input: "an operator's phrase\n").status == 0)
        let store = try SqliteUserStore(path: database)
        #expect(try store.find(username: "ann")?.passwordChangeDue == false)
        #expect(try await store.allUsers().map(\.username) == ["ann", "bob"])
        let bob = try #require(try store.find(username: "bob"))
        #expect(bob.passwordChangeDue && bob.user.email == "Bob@Example.com")
    }

    @Test func addUserInvitesWithALinkOnItsLastLineThatSetsThePasswordOnce() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("users.db").path
        #expect(try run(["add-user", "ann", "--db", file, "--role", "admin", "--cost", "4"], input: "a first long phrase\n").status == 0)
        let invited = try run(["add-user", "bob", "--db", file, "--invite", "--role", "editor", "--email", "bob@example.com"], input: "")
        #expect(invited.status == 0)
        let url = try #require(invited.output.split(separator: "\n").last.map(String.init))
        #expect(url.hasPrefix("http://localhost:4567/password/setup?key="), "\(invited.output)")
        #expect(try run(["add-user", "bob", "--db", file, "--invite"], input: "").status != 0)
        #expect(try run(["add-user", "carl", "--db", file, "--invite", "--sso-only"], input: "").status != 0)

        // The link opens in the app serving that file, once.
        let users = try SqliteUserStore(path: file)
        #expect(try users.find(username: "bob").map { !$0.hasPassword && $0.user.roles == ["editor"] } == true)
        let database = try await Database.sqlite(path: file)
        let app = isolatedApp()
        var authentication = Authentication(users: users)
        authentication.passwordCost = 4
        app.use(authentication)
        app.use(Accounts(database: database))
        app.get("/me") { request in try request.authenticate().username }
        let components = try #require(URLComponents(string: url))
        let browser = TestClient(app)
        let target = components.path + "?" + (components.query ?? "")
        let opened = try await browser.get(target)
        #expect(opened.location == "/password/setup")
        let set = try await browser.post("/password/setup", form: ["new_password": "bob's own phrase 1", "new_password_confirmation": "bob's own phrase 1"])
        #expect(set.status == .seeOther)
        #expect(try await browser.get("/me").text == "bob")
        let again = try await TestClient(app).get(target)
        #expect(again.status == .gone)
        await database.shutdown()
        await users.shutdown()
    }

    @Test func addUserRefusesThePublishedDemoPasswordAndWeakOnes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("users.db").path
        for password in ["secret123", "Secret123", "short", "password1", "letmein1", "qwertyuiop", "erin-the-admin", String(repeating: "é", count: 37)] {
            let result = try run(["add-user", "erin-the-admin", "--db", database, "--cost", "4"], input: password + "\n")
            #expect(result.status != 0, "\(password)")
        }
        #expect(try SqliteUserStore(path: database, create: true).find(username: "erin-the-admin") == nil)
        #expect(try run(["add-user", "erin-the-admin", "--db", database, "--cost", "4"], input: "a long unusual phrase\n").status == 0)
    }
}

@Suite struct UserSourceTests {
    @Test func usersComeFromTheDatabaseOrTheYamlFileNamedInTheEnvironment() async throws {
        #expect(UserSource.tableFile([:]) == nil)
        #expect(try UserSource.yaml([:]) is YamlUserStore)
        #expect(UserSource.tableFile(["MICRO_DATABASE_URL": "postgres://db/micro", "MICRO_USERS_DB": "users.db"]) == "")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-source-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("users.db").path
        _ = try SqliteUserStore(path: database, create: true)
        let file = try #require(UserSource.tableFile(["MICRO_USERS_DB": database]))
        let stores = try await AppStores.open(file: file, create: false, environment: [:])
        #expect(stores.users is SqliteUserStore)
        await stores.shutdown()
        #expect(throws: ConfigurationError.self) { try UserSource.yaml(["MICRO_CREDENTIALS": folder.appendingPathComponent("none.yml").path]) }
        // A users database that is not there is a mistake, not a new empty one.
        let missing = folder.appendingPathComponent("none.db").path
        await #expect(throws: ConfigurationError.self) { try await AppStores.open(file: missing, create: false, environment: [:]) }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}

/// `swift run SampleApp` as a person runs it: it says where it listens, logs each request,
/// stops cleanly on SIGTERM, and refuses a bad setting with a message instead of a crash trace.
@Suite struct ServeTests {
    @Test func servesLogsAndStopsCleanlyOnSigterm() async throws {
        // Development (the default) logs at info level; a set secret keeps it from writing one.
        let app = try await SampleAppProcess.start(["PORT": "0", "MICRO_ENV": "development", "MICRO_SESSION_SECRET": String(repeating: "s", count: 40)])
        defer { app.stop() }
        // A request over the socket, answered and logged.
        let answer = try await RawSocket.get(port: app.port, path: "/")
        #expect(answer.hasPrefix("HTTP/1.1 200 OK"))
        #expect(try await app.waitForLog("GET / 200"))
        try await app.terminateCleanly()  // SIGTERM
        #expect(try await app.waitForLog("Received SIGTERM"))
        #expect(try await app.waitForLog("Stopped."))
    }

    /// Whoever waits for the start-up line may stop the app the moment it appears (a test, a
    /// script, a service manager): the signal is caught by then, never dropped.
    @Test func aSigtermTheMomentTheStartUpLineAppearsStopsTheApp() async throws {
        for _ in 0..<20 {
            let process = Process()
            process.executableURL = try SampleAppProcess.binary()
            process.environment = ProcessInfo.processInfo.environment.merging(["PORT": "0", "MICRO_ENV": "development", "MICRO_SESSION_SECRET": String(repeating: "s", count: 40)]) { $1 }
            let errors = Pipe()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            try process.run()
            // Read on a thread of its own, and signal from it at once: a poll's delay would give
            // the app time a quick script does not. (A FileHandle's readabilityHandler is a
            // Dispatch source, which crashed Dispatch when it was set to nil and the pipe closed
            // at once, twenty times over.)
            let log = Collected()
            let done = DispatchSemaphore(value: 0)
            let pid = process.processIdentifier
            let reader = Thread {
                var sent = false
                while case let chunk = errors.fileHandleForReading.availableData, !chunk.isEmpty {
                    log.append(chunk)
                    if !sent, log.text.contains("Micro listening on") {
                        kill(pid, SIGTERM)
                        sent = true
                    }
                }
                done.signal()
            }
            reader.start()
            let exited = try await SampleAppProcess.exits(process)
            #expect(exited, "SampleApp still ran 20 s after SIGTERM at its start-up line; its log:\n\(log.text)")
            // The pipe ends with the process: the reader is done within moments.
            #expect(done.wait(timeout: .now() + 5) == .success)
            #expect(process.terminationStatus == 0 && log.text.contains("Stopped."), "\(log.text)")
            if !exited { return }
        }
    }

    /// SampleApp started with `environment` added, expected to stop: its status and what it said.
    private func failedStart(_ environment: [String: String]) throws -> (status: Int32, message: String) {
        let process = Process()
        process.executableURL = try SampleAppProcess.binary()
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, message)
    }

    @Test func productionRefusesTheDemoPasswordUnlessTheDemoIsDeliberate() async throws {
        let secret = "5f0c9e2a7b1d4863a9e0f7c2b6d1358e4a7c0f9b2e6d1a3c8b5f7e0d2c4a9b61"
        let (status, message) = try failedStart(["PORT": "0", "MICRO_ENV": "production", "MICRO_SESSION_SECRET": secret])
        #expect(status == 1)
        #expect(message.contains("Micro cannot start: credentials.yml: the user 'user' has a published demo password"), "\(message)")
        #expect(message.contains("SampleApp hash-password") && message.contains("MICRO_ALLOW_DEMO_USERS=1"))
        #expect(!message.contains("Fatal error"))

        let demo = try await SampleAppProcess.start(["PORT": "0", "MICRO_ENV": "production", "MICRO_SESSION_SECRET": secret, "MICRO_ALLOW_DEMO_USERS": "1"])
        defer { demo.stop() }
        #expect(demo.log.text.contains("published demo password, allowed by MICRO_ALLOW_DEMO_USERS=1"))
        try await demo.terminateCleanly()
    }

    @Test func aBadSettingStopsStartUpWithAMessage() throws {
        let (status, message) = try failedStart(["PORT": "0", "MICRO_ENV": "prod"])
        #expect(status == 1)
        #expect(message.contains("Micro cannot start: MICRO_ENV is 'prod'"))
        #expect(!message.contains("Fatal error"))
    }
}
