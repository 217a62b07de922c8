import Foundation
import Micro
import Testing

/// The sample app's files with secrets, as a person makes them: `add-user` creates the users
/// database 0600 even under a permissive umask, and serving from files open to other users
/// logs a warning at start naming each file and the fix.
@Suite struct FileModeTests {
    private func permissions(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o777
    }

    private func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-modes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // The app's templates, which it needs to start, from the package's own folder.
        let views = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("views")
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("views"), withDestinationURL: views)
        return folder
    }

    /// `umask 0; SampleApp add-user NAME --db PATH`, the password piped in; the exit status.
    private func addUser(_ name: String, database: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", #"umask 0; exec "$0" "$@""#, try SampleAppProcess.binary().path,
                             "add-user", name, "--db", database, "--cost", "4"]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data("correct-horse-\(name)\n".utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test func addUserCreatesTheDatabasePrivateUnderAPermissiveUmask() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("users.db").path
        #expect(try addUser("carol", database: database) == 0)
        #expect(permissions(database) == 0o600)
        #expect(try addUser("dave", database: database) == 0)
        #expect(permissions(database) == 0o600)
        #expect(try SqliteUserStore(path: database).count() == 2)
    }

    @Test func startingFromFilesOpenToOthersLogsWhichAndTheFix() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("users.db").path
        #expect(try addUser("carol", database: database) == 0)
        let secretFile = folder.appendingPathComponent(".micro-session-secret").path
        try Data((String(repeating: "ab12", count: 16) + "\n").utf8).write(to: URL(fileURLWithPath: secretFile))
        chmod(database, 0o644)
        chmod(secretFile, 0o640)
        // Development reads its secret from .micro-session-secret in the working directory.
        let app = try await SampleAppProcess.start(["PORT": "0", "MICRO_ENV": "development", "MICRO_USERS_DB": database], in: folder)
        defer { app.stop() }
        let log = app.log.text
        #expect(log.contains("warning"))
        #expect(log.contains("\(database) holds password hashes and other local users can read it (mode 0644); make it private: chmod 600 \(database)"))
        #expect(log.contains(".micro-session-secret holds the development session secret and other local users can read it (mode 0640); make it private: chmod 600 .micro-session-secret"))
        try await app.terminateCleanly()
    }

    @Test func privateFilesStartWithoutAWarning() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("users.db").path
        #expect(try addUser("carol", database: database) == 0)
        let app = try await SampleAppProcess.start(["PORT": "0", "MICRO_ENV": "development", "MICRO_USERS_DB": database], in: folder)
        defer { app.stop() }
        // The secret was made at start, 0600.
        #expect(permissions(folder.appendingPathComponent(".micro-session-secret").path) == 0o600)
        #expect(!app.log.text.contains("chmod"))
        try await app.terminateCleanly()
    }
}
