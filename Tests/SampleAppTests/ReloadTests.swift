import Foundation
import Micro
import Testing

/// The sample app as a person runs it, its credentials.yml edited while it serves: `kill -HUP`
/// picks up the edit, a broken edit is logged and the last good users stay, and the server
/// never stops.
@Suite struct ReloadTests {
    @Test func sighupReloadsTheCredentialsFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-reload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("credentials.yml").path
        let userHash = try Password.hash("secret123", cost: 4)
        let zedHash = try Password.hash("zed-password", cost: 4)
        try Data("username: user\npassword_hash: \(userHash)\n".utf8).write(to: URL(fileURLWithPath: file))

        let app = try await SampleAppProcess.start([
            "PORT": "0", "MICRO_ENV": "development", "MICRO_SESSION_SECRET": String(repeating: "s", count: 40),
            "MICRO_CREDENTIALS": file,
        ])
        defer { app.stop() }
        #expect(try await RawSocket.signIn(port: app.port, username: "user", password: "secret123") == "/")
        #expect(try await RawSocket.signIn(port: app.port, username: "zed", password: "zed-password") == "/signin")

        try Data("users:\n  - username: user\n    password_hash: \(userHash)\n  - username: zed\n    password_hash: \(zedHash)\n".utf8)
            .write(to: URL(fileURLWithPath: file))
        try await app.hangUp(until: "Reloaded users from \(file) (2 users)")
        #expect(try await RawSocket.signIn(port: app.port, username: "zed", password: "zed-password") == "/")

        try Data("users:\n  - username: zed\n    password_hash: [unclosed\n".utf8).write(to: URL(fileURLWithPath: file))
        try await app.hangUp(until: "Reload failed, keeping the users from \(file) (2 users): \(file):3: malformed YAML")
        #expect(try await RawSocket.signIn(port: app.port, username: "zed", password: "zed-password") == "/")
        #expect(try await RawSocket.signIn(port: app.port, username: "user", password: "secret123") == "/")

        #expect(app.process.isRunning)
        try await app.terminateCleanly()
    }
}
