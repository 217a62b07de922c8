import Foundation
import Testing

/// The SampleApp binary (or another tool built beside the tests: Tests/LabTool), serving on a
/// port of its own; what it logs (swift-log writes to standard error) is collected as it arrives.
final class SampleAppProcess: Sendable {
    let process: Process
    let log: Collected
    let port: Int

    private init(process: Process, log: Collected, port: Int) {
        self.process = process
        self.log = log
        self.port = port
    }

    /// The binary `name` the build put beside the test bundle.
    static func binary(_ name: String = "SampleApp") throws -> URL {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        throw CommandTestError("\(name) is not built beside the tests")
    }

    /// Starts SampleApp (or the tool `binary`) with `environment` added to this process's (in
    /// `directory`, when given), and waits (at most 20 s) for its start-up line.
    static func start(_ environment: [String: String], in directory: URL? = nil, binary name: String = "SampleApp") async throws -> SampleAppProcess {
        let process = Process()
        process.executableURL = try binary(name)
        if let directory { process.currentDirectoryURL = directory }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        let log = Collected()
        errors.fileHandleForReading.readabilityHandler = { handle in log.append(handle.availableData) }
        try process.run()
        let app = SampleAppProcess(process: process, log: log, port: 0)
        guard try await app.waitForLog(#"listening on https?://127\.0\.0\.1:\d+"#, regex: true) else {
            app.stop()
            throw CommandTestError("\(name) did not start: \(log.text)")
        }
        let text = log.text
        let line = text.range(of: #"listening on https?://127\.0\.0\.1:\d+"#, options: .regularExpression).map { text[$0] } ?? ""
        return SampleAppProcess(process: process, log: log, port: Int(line.split(separator: ":").last ?? "") ?? 0)
    }

    /// Waits (at most 20 s) until the log holds `text`; returns whether it did.
    func waitForLog(_ text: String, regex: Bool = false) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let log = log.text
            if regex ? log.range(of: text, options: .regularExpression) != nil : log.contains(text) { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Sends SIGHUP and waits for `line` in the log.
    func hangUp(until line: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        kill(process.processIdentifier, SIGHUP)
        let logged = try await waitForLog(line)
        #expect(logged, "SampleApp's log after SIGHUP: \(log.text)", sourceLocation: sourceLocation)
    }

    /// Sends SIGTERM and expects a clean exit (status 0); otherwise the failure shows the
    /// log, where a crash or a sanitizer's report is.
    func terminateCleanly(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        process.terminate()
        guard try await Self.exits(process) else {
            Issue.record("\(name) still ran 20 s after SIGTERM (killed); its log:\n\(log.text)", sourceLocation: sourceLocation)
            return
        }
        #expect(
            process.terminationStatus == 0, "\(name) exited with status \(process.terminationStatus) after SIGTERM; its log:\n\(log.text)",
            sourceLocation: sourceLocation)
    }

    /// Stops the process if it still runs: SIGTERM, then SIGKILL when it has not exited by
    /// then, so that a test never waits for ever.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Whether `process` exits within 20 s; SIGKILL when it has not.
    static func exits(_ process: Process) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(20)
        while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return false
        }
        // At once now; and Foundation lets go of the process's pipes only here.
        process.waitUntilExit()
        return true
    }

    private var name: String { process.executableURL?.lastPathComponent ?? "The tool" }
}

/// Requests over a plain socket, the whole answer as text.
enum RawSocket {
    /// One GET, answered and closed.
    static func get(port: Int, path: String) async throws -> String {
        try await exchange(port: port, "GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    }

    /// Signs in over a socket as a browser does (the form's CSRF token and session cookie, then
    /// the POST); returns where the answer sends you: `/` after a sign-in, `/signin` after a
    /// refusal.
    static func signIn(port: Int, username: String, password: String) async throws -> String? {
        let form = try await exchange(port: port, "GET /signin HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        guard let cookie = header("Set-Cookie", in: form)?.split(separator: ";").first,
            let field = form.range(of: #"name="_csrf" value="[^"]*""#, options: .regularExpression),
            let token = form[field].split(separator: "\"").last
        else { throw CommandTestError("no sign-in form: \(form)") }
        let encode = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" }
        let body = "_csrf=\(encode(String(token)))&username=\(encode(username))&password=\(encode(password))"
        let answer = try await exchange(port: port, """
            POST /signin HTTP/1.1\r
            Host: localhost\r
            Cookie: \(cookie)\r
            Content-Type: application/x-www-form-urlencoded\r
            Content-Length: \(body.utf8.count)\r
            Connection: close\r
            \r
            \(body)
            """)
        return header("Location", in: answer)
    }

    /// The first value of the header field `name` in a raw answer.
    private static func header(_ name: String, in answer: String) -> String? {
        let head = answer.components(separatedBy: "\r\n\r\n").first ?? ""
        return head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
    }

    /// Sends `request` over a new connection and returns the whole answer.
    static func exchange(port: Int, _ request: String) async throws -> String {
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
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
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

/// Text a child process writes, collected as it arrives.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    func append(_ chunk: Data) { lock.withLock { data.append(chunk) } }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}

struct CommandTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
