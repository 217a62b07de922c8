import Foundation
import Micro
import Testing

/// `swift run NotesTool` as a person runs it: a database it cannot open or a missing setting is
/// one line naming it, exit status 1, no crash trace; otherwise it serves until SIGTERM and
/// stops cleanly; Micro's commands answer under the tool's own name and add its first admin.
@Suite(.timeLimit(.minutes(3))) struct StartUpTests {
    private func binary() throws -> URL {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent("NotesTool")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        throw CocoaError(.fileNoSuchFile)
    }

    @Test func aDatabaseThatCannotBeOpenedStopsStartUpWithOneLine() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A folder where the database file should be.
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("notes.db"), withIntermediateDirectories: true)
        let result = try run([], in: folder)
        #expect(result.status == 1)
        let refusals = result.errors.split(separator: "\n").filter { $0.hasPrefix("Micro cannot start: ") }
        #expect(refusals.count == 1 && refusals[0].hasPrefix("Micro cannot start: notes.db: "), "\(result.errors)")
        #expect(!result.errors.contains("Fatal error"))
    }

    /// The tool's environment: none of this process's settings, but a sanitizer's options (its
    /// suppressions) when the tests run under one.
    private var cleanEnvironment: [String: String] {
        ProcessInfo.processInfo.environment.filter { $0.key.hasSuffix("SAN_OPTIONS") }.merging(["PATH": "/usr/bin:/bin", "PORT": "0"]) { $1 }
    }

    /// A folder with the tool's views.
    private func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("notes-start-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("views"), withIntermediateDirectories: true)
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
        process.environment = cleanEnvironment.merging(environment) { $1 }
        // Standard error into a file, not a pipe: read after standard output, a pipe the tool filled
        // (a sanitizer's report is long) would leave both waiting for each other.
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: errorFile.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let stdin = Pipe(), stdout = Pipe(), stderr = try FileHandle(forWritingTo: errorFile)
        defer { try? stderr.close() }
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errors = try Data(contentsOf: errorFile)
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
        // The link commands come with single sign-on only: not in the example's own package, which
        // names the Postgres trait alone, but in Micro's, whose default traits include it.
        #if OpenIdConnect
        #expect(help.output.contains("unlink"))
        #else
        #expect(!help.output.contains("unlink"))
        #endif
        let hashed = try run(["hash-password", "--cost", "4"], in: folder, input: "a long unusual phrase\n")
        #expect(hashed.status == 0)
        #expect(Password.verify("a long unusual phrase", against: hashed.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        // The first admin, into the tool's own table; a weak password is refused in one line.
        let added = try run(["add-user", "kim", "--role", "admin"], in: folder, input: "a long unusual phrase\n")
        #expect(added.status == 0, "\(added.errors)")
        let weak = try run(["add-user", "lee"], in: folder, input: "password\n")
        #expect(weak.status != 0 && weak.errors.split(separator: "\n").count == 1 && !weak.errors.contains("Fatal error"), "\(weak.errors)")
        let removed = try run(["remove-user", "nobody"], in: folder)
        #expect(removed.status != 0 && removed.errors.contains("nobody"), "\(removed.errors)")
    }

    @Test func productionWithoutTheDataKeyIsRefusedNamingIt() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try run([], in: folder, environment: ["MICRO_ENV": "production", "MICRO_SESSION_SECRET": "5f0c9e2a7b1d4863a9e0f7c2b6d1358e4a7c0f9b2e6d1a3c8b5f7e0d2c4a9b61"])
        #expect(result.status == 1)
        #expect(result.errors.contains("MICRO_DATA_KEY"), "\(result.errors)")
    }

    @Test func itServesUntilSigtermThenStopsCleanly() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = Process()
        process.executableURL = try binary()
        process.currentDirectoryURL = folder
        process.environment = cleanEnvironment
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
