import Foundation
import MicroTestSupport
import Testing

/// SampleApp serving HTTPS from `MICRO_TLS_CERT` and `MICRO_TLS_KEY` as a person runs it: a
/// renewal is picked up on `kill -HUP`, a broken one is logged and the certificate in use
/// stays, and a key every user can read stops start-up naming the file.
@Suite struct TlsProcessTests {
    @Test func sighupServesARenewedCertificate() async throws {
        let folder = try TemporaryFolder()
        let files = try TlsCertificateFiles(in: folder, name: "site")
        let saved = try TlsCertificateFiles(copying: files, to: folder.file("first"))
        let renewal = try TlsCertificateFiles(in: folder, name: "renewal")
        let app = try await SampleAppProcess.start([
            "PORT": "0", "MICRO_ENV": "development", "MICRO_SESSION_SECRET": String(repeating: "s", count: 40),
            "MICRO_TLS_CERT": files.certificate, "MICRO_TLS_KEY": files.key,
        ])
        defer { app.stop() }
        #expect(try await app.waitForLog("listening on https://127.0.0.1:"))
        #expect(try await Self.signInPage(port: app.port, trusting: saved.certificate) == 200)

        try renewal.replace(files)
        try await app.hangUp(until: "Reloaded TLS certificate \(files.certificate) (valid until ")
        #expect(try await Self.signInPage(port: app.port, trusting: renewal.certificate) == 200)
        #expect(try await Self.signInPage(port: app.port, trusting: saved.certificate) == nil)

        try Data("-----BEGIN CERTIFICATE-----\ncut short".utf8).write(to: URL(fileURLWithPath: files.certificate))
        try await app.hangUp(until: "Reload failed, keeping the TLS certificate \(files.certificate) (valid until ")
        #expect(try await Self.signInPage(port: app.port, trusting: renewal.certificate) == 200)
        try await app.terminateCleanly()
    }

    @Test func aKeyEveryoneCanReadStopsStartUp() throws {
        let folder = try TemporaryFolder()
        let files = try TlsCertificateFiles(in: folder, name: "site")
        #expect(chmod(files.key, 0o604) == 0)
        let run = try CommandRun([], environment: ["PORT": "0", "MICRO_TLS_CERT": files.certificate, "MICRO_TLS_KEY": files.key])
        #expect(run.status == 1)
        #expect(run.errors == "Micro cannot start: TLS key \(files.key): every local user can read it (mode 604); make it private: chmod o-rwx \(files.key)\n", "\(run.errors)")
    }

    /// The status of `GET /signin` over a new TLS connection trusting only `certificate`; nil
    /// when the handshake fails.
    static func signInPage(port: Int, trusting certificate: String) async throws -> Int? {
        let client = try await RawHttpClient.connect(port: port, tlsTrusting: certificate)
        defer { Task { await client.close() } }
        // A handshake that failed has closed the connection already.
        try? await client.send("GET /signin HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        return try? await client.readResponse(timeout: 5).status
    }
}
