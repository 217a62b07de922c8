import Foundation

/// A command of SampleApp (or of another tool built beside the tests) run to its end, as a
/// person runs it: `input` on standard input, what it printed and its status.
struct CommandRun {
    let status: Int32
    let output: String
    let errors: String

    /// Runs `binary` with `arguments`, in `folder` when given; `environment` replaces the
    /// variables named, and `MICRO_*` ones of this process are dropped when `clean`.
    init(
        _ arguments: [String], binary: String = "SampleApp", in folder: URL? = nil, environment: [String: String] = [:], clean: Bool = false,
        input: String = ""
    ) throws {
        let process = Process()
        process.executableURL = try SampleAppProcess.binary(binary)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        let inherited = ProcessInfo.processInfo.environment.filter { !clean || !$0.key.hasPrefix("MICRO_") }
        process.environment = inherited.merging(environment) { $1 }
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
        status = process.terminationStatus
        self.output = String(decoding: output, as: UTF8.self)
        self.errors = String(decoding: errors, as: UTF8.self)
    }
}
