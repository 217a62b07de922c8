import Foundation
import Testing

/// `swift run NotesTool` as a person runs it, from a folder without its users file: one line
/// naming the file, exit status 1, no crash trace.
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
}
