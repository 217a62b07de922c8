import Foundation
import MicroTestSupport
import MicroTesting
import NIOSSL
import Testing

import MicroCore

/// What HTTPS served by the app promises beyond the handshake: `Strict-Transport-Security` on
/// every answer in production, so the port-80 redirect cannot be stripped on a later visit;
/// and TLS 1.2 without the CBC and SHA-1 suites.
@Suite("HSTS and the TLS 1.2 suites")
struct StrictTransportSecurityTests {
    @Test("production over HTTPS sends Strict-Transport-Security on pages, errors and files; development does not")
    func productionSendsIt() async throws {
        let folder = try TemporaryFolder(["public/app.css": "body {}"])
        let files = try TlsCertificateFiles(in: folder, name: "site")
        let tls = TlsSettings(certificateFile: files.certificate, keyFile: files.key)
        let production = testApp(publicFolder: folder.file("public"), environment: .production) { $0.tls = tls }
        production.get("/") { _ in "home" }
        let client = TestClient(production)
        for path in ["/", "/missing", "/app.css"] {
            #expect(try await client.get(path).headers.first(name: "Strict-Transport-Security") == "max-age=31536000", "\(path)")
        }

        var shorter = tls
        shorter.strictTransportSecurityMaxAge = 600
        let short = testApp(environment: .production) { $0.tls = shorter }
        #expect(try await TestClient(short).get("/missing").headers.first(name: "Strict-Transport-Security") == "max-age=600")

        var off = tls
        off.strictTransportSecurityMaxAge = 0
        let none = testApp(environment: .production) { $0.tls = off }
        #expect(try await TestClient(none).get("/missing").headers.first(name: "Strict-Transport-Security") == nil)

        // A browser would remember HTTPS for localhost: never in development, nor without TLS.
        let development = testApp(environment: .development) { $0.tls = tls }
        #expect(try await TestClient(development).get("/missing").headers.first(name: "Strict-Transport-Security") == nil)
        let plain = testApp(environment: .production)
        #expect(try await TestClient(plain).get("/missing").headers.first(name: "Strict-Transport-Security") == nil)
    }

    @Test("MICRO_HSTS_MAX_AGE sets the max-age; a bad value names the variable")
    func fromTheProcess() throws {
        let base = ["MICRO_TLS_CERT": "cert.pem", "MICRO_TLS_KEY": "key.pem"]
        #expect(try Settings.fromProcess(base).tls?.strictTransportSecurityMaxAge == 31_536_000)
        #expect(try Settings.fromProcess(base.merging(["MICRO_HSTS_MAX_AGE": "0"]) { $1 }).tls?.strictTransportSecurityMaxAge == 0)
        #expect(try Settings.fromProcess(base.merging(["MICRO_HSTS_MAX_AGE": "86400"]) { $1 }).tls?.strictTransportSecurityMaxAge == 86400)
        for bad in ["-1", "a year", "99999999999"] {
            #expect(throws: ConfigurationError.self) { try Settings.fromProcess(base.merging(["MICRO_HSTS_MAX_AGE": bad]) { $1 }) }
            do { _ = try Settings.fromProcess(base.merging(["MICRO_HSTS_MAX_AGE": bad]) { $1 }) } catch {
                #expect(error.message.contains("MICRO_HSTS_MAX_AGE is '\(bad)'"))
            }
        }
    }

    @Test("over a real socket: the header is there, and a client offering only CBC-SHA1 suites at TLS 1.2 is refused")
    func cipherSuites() async throws {
        let folder = try TemporaryFolder()
        let files = try TlsCertificateFiles(in: folder, name: "site")
        let configure: (inout Settings) -> Void = {
            $0.environment = .production
            $0.sessions.secret = "5f0c9e2a7b1d4863a9e0f7c2b6d1358e4a7c0f9b2e6d1a3c8b5f7e0d2c4a9b61"
            $0.tls = TlsSettings(certificateFile: files.certificate, keyFile: files.key)
        }
        try await withServer(configure) { server in
            let modern = try await RawHttpClient.connect(port: server.port, tlsTrusting: files.certificate)
            try await modern.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let answer = try await modern.readResponse()
            #expect(answer.text == "Hello")
            #expect(answer.header("Strict-Transport-Security") == "max-age=31536000")
            await modern.close()

            let cbc: [NIOTLSCipher] = [
                .TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA, .TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
                .TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, .TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
            ]
            let old = try await RawHttpClient.connect(port: server.port, tlsTrusting: files.certificate, tlsCipherSuites: cbc)
            try? await old.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            await #expect(throws: RawHttpClient.Failure.self) { try await old.readResponse(timeout: 5) }

            // The same client offering a GCM suite too is served: the refusal was the suites'.
            let mixed = try await RawHttpClient.connect(
                port: server.port, tlsTrusting: files.certificate,
                tlsCipherSuites: cbc + [.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256])
            try await mixed.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await mixed.readResponse().text == "Hello")
            await mixed.close()
        }
    }
}
