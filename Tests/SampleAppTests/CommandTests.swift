import Foundation
import Micro
import Testing
@testable import SampleApp

/// `SampleApp hash-password` and `add-user`, run as a person would, with the password piped in.
@Suite struct CommandTests {
    /// The SampleApp binary built beside the test bundle.
    private var sampleApp: URL? {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent("SampleApp")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }

    private func run(_ arguments: [String], input: String) throws -> (status: Int32, output: String) {
        guard let sampleApp else { throw CommandTestError("SampleApp is not built beside the tests") }
        let process = Process()
        process.executableURL = sampleApp
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    @Test func hashPasswordPrintsAHashForCredentialsYml() throws {
        let result = try run(["hash-password", "--cost", "4"], input: "s3cret\n")
        #expect(result.status == 0)
        let hash = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(hash.hasPrefix("$2b$04$"))
        #expect(Password.verify("s3cret", against: hash))
        #expect(try run(["hash-password"], input: "").status != 0)
    }

    @Test func addUserWritesTheSqliteUsersTable() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("users.db").path
        let result = try run(["add-user", "Carol", "--db", database, "--name", "Carol C", "--cost", "4"], input: "pw-carol\n")
        #expect(result.status == 0)
        let store = try SqliteUserStore(path: database)
        let carol = try #require(try store.find(username: "carol"))
        #expect(carol.user.name == "Carol C")
        #expect(Password.verify("pw-carol", against: carol.passwordHash))
    }
}

struct CommandTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

@Suite struct UserSourceTests {
    @Test func usersComeFromTheDatabaseOrTheYamlFileNamedInTheEnvironment() throws {
        #expect(try UserSource.fromEnvironment([:]) is YamlUserStore)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-source-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("users.db").path
        _ = try SqliteUserStore(path: database, create: true)
        #expect(try UserSource.fromEnvironment(["MICRO_USERS_DB": database]) is SqliteUserStore)
        #expect(throws: ConfigurationError.self) { try UserSource.fromEnvironment(["MICRO_CREDENTIALS": folder.appendingPathComponent("none.yml").path]) }
        #expect(throws: ConfigurationError.self) { try UserSource.fromEnvironment(["MICRO_USERS_DB": folder.appendingPathComponent("none.db").path]) }
    }
}
