import Foundation
import Micro
import Testing

/// `swift run NotesTool` as a person runs it: from a folder without its users file, one line
/// naming the file, exit status 1, no crash trace; with it, it serves until SIGTERM and stops
/// cleanly; Micro's commands answer under the tool's own name.
@Suite struct StartUpTests {
    private func binary() throws -> URL {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent("NotesTool")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        throw CocoaError(.fileNoSuchFile)
    }

    @Test func aMissingUsersFileStopsStartUpWithOneLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("notes-start-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = Process()
        process.executableURL = try binary()
        process.currentDirectoryURL = folder
        process.environment = ["PATH": "/usr/bin:/bin", "PORT": "0"]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(message.hasPrefix("Micro cannot start: credentials.yml"), "\(message)")
        #expect(message.split(separator: "\n").count == 1)
        #expect(!message.contains("Fatal error"))
    }

    /// A folder with the tool's views and its users file, `credentials` when given.
    private func folder(credentials: String? = nil) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("notes-start-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("views"), withIntermediateDirectories: true)
        if let credentials { try credentials.write(to: folder.appendingPathComponent("credentials.yml"), atomically: true, encoding: .utf8) }
        return folder
    }

    /// Runs the tool in `folder` to its end, with `input` on standard input.
    private func run(_ arguments: [String], in folder: URL, environment: [String: String] = [:], input: String = "") throws
        -> (status: Int32, output: String, errors: String)
    {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.environment = ["PATH": "/usr/bin:/bin", "PORT": "0"].merging(environment) { $1 }
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }

    @Test func microsCommandsAnswerUnderTheToolsName() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let help = try run(["--help"], in: folder)
        #expect(help.status == 0)
        #expect(help.output.contains("USAGE: NotesTool"), "\(help.output)")
        #expect(help.output.contains("An on-call team's notes."))
        #expect(help.output.contains("hash-password") && help.output.contains("add-user"))
        // Without single sign-on (the tool names only the Postgres trait), no link commands.
        #expect(!help.output.contains("unlink"))
        let hashed = try run(["hash-password", "--cost", "4"], in: folder, input: "a long unusual phrase\n")
        #expect(hashed.status == 0)
        #expect(Password.verify("a long unusual phrase", against: hashed.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        // Its users are in a file: add-user has no table to change unless told one.
        let refused = try run(["add-user", "kim"], in: folder, input: "a long unusual phrase\n")
        #expect(refused.status != 0)
        #expect(refused.errors.contains("--db FILE"), "\(refused.errors)")
        #expect(refused.errors.contains("NotesTool keeps its users in credentials.yml"), "\(refused.errors)")
        // Not even into a database MICRO_DATABASE_URL names, which the tool never reads users from.
        let elsewhere = try run(["add-user", "kim"], in: folder, environment: ["MICRO_DATABASE_URL": "postgres://micro@127.0.0.1:1/micro"], input: "a long unusual phrase\n")
        #expect(elsewhere.status != 0 && elsewhere.errors.contains("credentials.yml"), "\(elsewhere.errors)")
    }

    @Test func aDemoPasswordInProductionIsRefusedNamingTheToolsOwnCommand() throws {
        let hash = try Password.hash("secret123", cost: 4)
        let folder = try folder(credentials: "users:\n  - username: kim\n    password_hash: \(hash)\n")
        defer { try? FileManager.default.removeItem(at: folder) }
        let secret = String(repeating: "k", count: 64)
        let result = try run([], in: folder, environment: ["MICRO_ENV": "production", "MICRO_SESSION_SECRET": secret, "MICRO_DATA_KEY": secret])
        #expect(result.status == 1)
        #expect(result.errors.contains("`NotesTool hash-password`"), "\(result.errors)")
    }

    @Test func itServesUntilSigtermThenStopsCleanly() async throws {
        let hash = try Password.hash("a long unusual phrase", cost: 4)
        let folder = try folder(credentials: "users:\n  - username: kim\n    password_hash: \(hash)\n")
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = Process()
        process.executableURL = try binary()
        process.currentDirectoryURL = folder
        process.environment = ["PATH": "/usr/bin:/bin", "PORT": "0"]
        let errors = Pipe()
        process.standardOutput = errors
        process.standardError = errors
        try process.run()
        var log = ""
        while !log.contains("Micro listening on") {
            let chunk = errors.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            log += String(decoding: chunk, as: UTF8.self)
        }
        #expect(log.contains("Micro listening on"), "\(log)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("notes.db").path))
        process.terminate()
        // Bounded: a tool that missed the signal fails the test instead of hanging the run.
        let deadline = ContinuousClock.now + .seconds(20)
        while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            Issue.record("NotesTool still ran 20 s after SIGTERM")
        }
        process.waitUntilExit()
        log += String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(log)")
        #expect(log.contains("Stopped."))
    }
}
