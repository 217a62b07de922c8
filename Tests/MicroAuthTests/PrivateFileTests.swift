import Foundation
import MicroAuth
@testable import MicroCore
import MicroTestSupport
import Testing

/// Files with secrets are private from the moment they exist: the users database (and SQLite's
/// journal files beside it) and the development session secret are created 0600 whatever the
/// umask, and an existing one open to other users is named in a warning with the fix.
///
/// Serialized: the umask is the whole process's, so the tests that clear it do so one at a time
/// and restore it at once.
@Suite(.serialized) struct PrivateFileTests {
    /// The permission bits of `path`, or nil when it is missing.
    private func permissions(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o777
    }

    /// Runs `work` with the umask cleared (every new file as permissive as its creator asks).
    private func withPermissiveUmask<T>(_ work: () throws -> T) rethrows -> T {
        let previous = umask(0)
        defer { umask(previous) }
        return try work()
    }

    /// Runs `work` with the umask cleared, awaiting it.
    private func withPermissiveUmask<T>(_ work: () async throws -> T) async rethrows -> T {
        let previous = umask(0)
        defer { umask(previous) }
        return try await work()
    }

    @Test func aNewUsersDatabaseIsPrivateEvenWithAPermissiveUmask() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("users.db")
        let store = try withPermissiveUmask { try SqliteUserStore(path: path, create: true) }
        #expect(permissions(path) == 0o600)
        try store.save(username: "ann", passwordHash: TestHashes.annPassword, name: nil)
        #expect(permissions(path) == 0o600)
        #expect(try store.find(username: "ann") != nil)
    }

    @Test func sqlitesJournalFilesTakeTheDatabasesMode() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("users.db")
        _ = try SqliteUserStore(path: path, create: true)
        try await withPermissiveUmask {
            // A rollback journal, while a write is under way.
            let writer = try await SqliteWriter(path)
            try await writer.execute("BEGIN IMMEDIATE")
            try await writer.execute("INSERT INTO users (username, password_hash) VALUES ('x', '\(TestHashes.secret123)')")
            #expect(permissions(path + "-journal") == 0o600)
            try await writer.execute("ROLLBACK")
            // The write-ahead log and its index, in WAL mode.
            try await writer.execute("PRAGMA journal_mode=WAL")
            try await writer.execute("INSERT INTO users (username, password_hash) VALUES ('y', '\(TestHashes.secret123)')")
            #expect(permissions(path + "-wal") == 0o600)
            #expect(permissions(path + "-shm") == 0o600)
        }
    }

    @Test func theDevelopmentSecretFileIsPrivateEvenWithAPermissiveUmask() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("session-secret")
        let secret = try withPermissiveUmask { try SessionSecret.fromFile(path) }
        #expect(permissions(path) == 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == secret + "\n")
        // Nothing else is left in the folder (the temporary file it was written to is gone).
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["session-secret"])
        // The next start reads it.
        #expect(try SessionSecret.fromFile(path) == secret)
    }

    @Test func aFileOpenToOthersIsNamedWithTheFix() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("users.db")
        _ = try SqliteUserStore(path: path, create: true)
        #expect(PrivateFile.warning(for: path, holding: "password hashes") == nil)
        chmod(path, 0o644)
        #expect(PrivateFile.warning(for: path, holding: "password hashes")
            == "\(path) holds password hashes and other local users can read it (mode 0644); make it private: chmod 600 \(path)")
        chmod(path, 0o620)
        #expect(PrivateFile.warning(for: path, holding: "password hashes")
            == "\(path) holds password hashes and other local users can use it (mode 0620); make it private: chmod 600 \(path)")
        // A read-only file stays read-only.
        chmod(path, 0o444)
        #expect(PrivateFile.warning(for: path, holding: "password hashes")?.hasSuffix("(mode 0444); make it private: chmod 400 \(path)") == true)
        #expect(PrivateFile.warning(for: folder.file("missing.db"), holding: "password hashes") == nil)
        // A path a shell would split is quoted in the fix.
        #expect(PrivateFile.shellQuoted("my users.db") == "'my users.db'")
        #expect(PrivateFile.shellQuoted("it's.db") == #"'it'\''s.db'"#)
    }

    @Test func theSecretFilesWarningIsForDevelopmentOnly() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var settings = Settings()
        settings.environment = .development
        settings.sessions.secretFile = folder.file("session-secret")
        _ = try SessionSecret.fromFile(settings.sessions.secretFile)
        #expect(SessionSecret.startupWarning(settings) == nil)
        chmod(settings.sessions.secretFile, 0o644)
        let warning = try #require(SessionSecret.startupWarning(settings))
        #expect(warning.contains("\(settings.sessions.secretFile) holds the development session secret"))
        #expect(warning.hasSuffix("chmod 600 \(settings.sessions.secretFile)"))
        // A secret from the environment (or another store) does not read the file.
        settings.sessions.secret = String(repeating: "k", count: 32)
        #expect(SessionSecret.startupWarning(settings) == nil)
    }
}
