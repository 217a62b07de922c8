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

/// `swift run SampleApp` as a person runs it: it says where it listens, logs each request,
/// stops cleanly on SIGTERM, and refuses a bad setting with a message instead of a crash trace.
@Suite struct ServeTests {
    private var sampleApp: URL? {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent("SampleApp")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }

    private func launch(_ environment: [String: String]) throws -> (Process, Pipe, Pipe) {
        guard let sampleApp else { throw CommandTestError("SampleApp is not built beside the tests") }
        let process = Process()
        process.executableURL = sampleApp
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return (process, output, errors)
    }

    @Test func servesLogsAndStopsCleanlyOnSigterm() async throws {
        // Development (the default) logs at info level; a set secret keeps it from writing one.
        // swift-log's default handler writes to standard error.
        let (process, _, output) = try launch(["PORT": "0", "MICRO_ENV": "development", "MICRO_SESSION_SECRET": String(repeating: "s", count: 40)])
        defer { if process.isRunning { process.terminate() } }
        let collected = Collected()
        output.fileHandleForReading.readabilityHandler = { handle in collected.append(handle.availableData) }
        // The start-up line names the address; wait for it (bounded).
        let deadline = ContinuousClock.now + .seconds(20)
        while !collected.text.contains("listening on http://127.0.0.1:"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        var text = collected.text
        let port = try #require(text.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression)
            .map { text[$0].split(separator: ":").last.map(String.init) ?? "" })
        // A request over the socket, answered and logged.
        let socket = try await RawSocket.get(port: Int(port) ?? 0, path: "/")
        #expect(socket.hasPrefix("HTTP/1.1 200 OK"))
        process.terminate()  // SIGTERM
        process.waitUntilExit()
        try await Task.sleep(for: .milliseconds(100))
        output.fileHandleForReading.readabilityHandler = nil
        text = collected.text
        #expect(process.terminationStatus == 0)
        #expect(text.contains("GET / 200"))
        #expect(text.contains("Received SIGTERM"))
        #expect(text.contains("Stopped."))
    }

    @Test func aBadSettingStopsStartUpWithAMessage() throws {
        let (process, _, errors) = try launch(["PORT": "0", "MICRO_ENV": "prod"])
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 1)
        #expect(message.contains("Micro cannot start: MICRO_ENV is 'prod'"))
        #expect(!message.contains("Fatal error"))
    }
}

/// Text a child process writes, collected as it arrives.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    func append(_ chunk: Data) { lock.withLock { data.append(chunk) } }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}

/// One GET over a plain socket, the whole answer as text.
enum RawSocket {
    static func get(port: Int, path: String) async throws -> String {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw CommandTestError("no socket") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw CommandTestError("cannot connect to port \(port)") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            answer += buffer[0..<count]
        }
        return String(decoding: answer, as: UTF8.self)
    }
}
