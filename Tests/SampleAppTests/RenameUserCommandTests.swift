import Foundation
import Micro
import MicroTestSupport
@testable import SampleApp
import Testing

/// `SampleApp rename-user OLD NEW`, run as an operator would.
@Suite struct RenameUserCommandTests {
    /// Runs SampleApp with `arguments`; its status, standard output and standard error.
    private func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = try SampleAppProcess.binary()
        process.arguments = arguments
        let stdout = Pipe()
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("micro-cli-error-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "")
    }

    @Test func renameUserRenamesAndCarriesTheTokensAndRefusesWithAReason() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.file("users.db")
        let store = try SqliteUserStore(path: database, create: true)
        try store.save(username: "carol", passwordHash: TestHashes.secret123, name: "Carol", roles: ["ops"])
        try store.save(username: "dan", passwordHash: TestHashes.secret123, name: nil)
        let tables = try await Database.sqlite(path: database)
        try await tables.migrate(DatabaseApiTokenStore.migrations)
        let now = Int64(Date().timeIntervalSince1970)
        #expect(try await DatabaseApiTokenStore(tables).add(
            ApiToken(id: "t1", digest: "d1", username: "carol", name: "cron", createdAt: now, expiresAt: now + 3600), limit: 50, now: now))
        await tables.shutdown()

        let renamed = try run(["rename-user", "CAROL", "Carol.Jones", "--db", database])
        #expect(renamed.status == 0, "\(renamed.error)")
        #expect(renamed.output.contains("Renamed user 'carol' to 'carol.jones' in \(database)"))
        #expect(try store.find(username: "carol") == nil)
        #expect(try store.find(username: "carol.jones")?.user.roles == ["ops"])
        let after = try await Database.sqlite(path: database)
        #expect(try await DatabaseApiTokenStore(after).token(digest: "d1")?.username == "carol.jones")
        #expect(try await DatabaseActivityLog(after).events(of: "carol.jones", offset: 0, limit: 10).contains {
            $0.event == ActivityEvent.Kind.renamed && $0.detail.contains("from carol")
        })
        await after.shutdown()

        let taken = try run(["rename-user", "carol.jones", "DAN", "--db", database])
        #expect(taken.status != 0 && taken.error.contains("'dan' is another user's name"))
        let missing = try run(["rename-user", "nobody", "someone", "--db", database])
        #expect(missing.status != 0 && missing.error.contains("No user 'nobody'"))
        let invalid = try run(["rename-user", "dan", "two words", "--db", database])
        #expect(invalid.status != 0 && invalid.error.contains("new name"))
        let lookalike = try run(["rename-user", "dan", "c\u{430}rol.jones", "--db", database])
        #expect(lookalike.status != 0 && lookalike.error.contains("looks like the existing user 'carol.jones'"))
        await store.shutdown()
    }
}
