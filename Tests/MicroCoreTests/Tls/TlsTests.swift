import Foundation
import MicroTestSupport
import NIOCore
import NIOPosix
import Testing

@testable import MicroCore

@Suite("HTTPS served by the app")
struct TlsTests {
    @Test("answers over TLS with its certificate; the scheme is https and the session cookie Secure")
    func servesHttps() async throws {
        let folder = try TemporaryFolder()
        let files = try TlsCertificateFiles(in: folder, name: "site")
        let routes: (App) -> Void = { app in
            app.get("/scheme") { request in
                request.session["seen"] = "yes"
                return request.scheme
            }
        }
        try await withServer({ $0.tls = TlsSettings(certificateFile: files.certificate, keyFile: files.key) }, routes: routes) { server in
            let client = try await RawHttpClient.connect(port: server.port, tlsTrusting: files.certificate)
            try await client.send("GET /scheme HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "https")
            #expect(response.header("Set-Cookie")?.contains("; Secure") == true)
            // Keep-alive works through TLS.
            try await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await client.readResponse().text == "Hello")
            await client.close()
        }
    }

    @Test("a client that does not trust the certificate gets no answer; plain HTTP gets none either")
    func othersGetNothing() async throws {
        let folder = try TemporaryFolder()
        let files = try TlsCertificateFiles(in: folder, name: "site")
        let stranger = try TlsCertificateFiles(in: folder, name: "stranger")
        try await withServer({ $0.tls = TlsSettings(certificateFile: files.certificate, keyFile: files.key) }) { server in
            let client = try await RawHttpClient.connect(port: server.port, tlsTrusting: stranger.certificate)
            // The handshake may have failed already, closing the connection.
            try? await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            await #expect(throws: RawHttpClient.Failure.self) { try await client.readResponse(timeout: 5) }
            let plain = try await RawHttpClient.connect(port: server.port)
            try await plain.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(await plain.waitForClose(timeout: 5))
            #expect(!plain.unreadBytes.starts(with: Array("HTTP/1.1".utf8)))
        }
    }

    @Test("a renewed certificate is served after a reload; a broken renewal keeps the one in use")
    func renewal() async throws {
        let folder = try TemporaryFolder()
        let first = try TlsCertificateFiles(in: folder, name: "first")
        let renewed = try TlsCertificateFiles(in: folder, name: "renewed")
        // The renewal's own files, kept apart to trust it by.
        let settings = TlsSettings(certificateFile: first.certificate, keyFile: first.key)
        var appSettings = Settings()
        appSettings.port = 0
        appSettings.environment = .test
        appSettings.accessLog = false
        appSettings.publicFolder = nil
        appSettings.views = nil
        appSettings.tls = settings
        let app = App(settings: appSettings, logger: .quietForTests)
        app.get("/hello") { _ in "Hello" }
        let server = try await app.start()
        defer { Task { await server.shutdown() } }
        #expect(try await Self.get(port: server.port, trusting: first.certificate)?.text == "Hello")

        // Saved aside, since the renewal overwrites the paths the app reads.
        let firstCopy = try TlsCertificateFiles(copying: first, to: folder.file("first-copy"))
        try renewed.replace(first)
        #expect(try await Self.get(port: server.port, trusting: renewed.certificate) == nil, "not before the reload")
        try app.reload()
        #expect(try await Self.get(port: server.port, trusting: renewed.certificate)?.text == "Hello")
        #expect(try await Self.get(port: server.port, trusting: firstCopy.certificate) == nil)

        // A broken renewal: the reload fails naming the file, and the renewed one stays.
        try "not a certificate".write(toFile: first.certificate, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { try app.reload() }
        #expect(try await Self.get(port: server.port, trusting: renewed.certificate)?.text == "Hello")
        await server.shutdown()
    }

    @Test("a file that cannot be used stops start-up with one line naming it and the fault")
    func startUpErrors() async throws {
        let folder = try TemporaryFolder()
        let files = try TlsCertificateFiles(in: folder, name: "site")
        let other = try TlsCertificateFiles(in: folder, name: "other")
        try "nothing to see".write(toFile: folder.file("text.pem"), atomically: true, encoding: .utf8)
        let cases: [(TlsSettings, String)] = [
            (TlsSettings(certificateFile: folder.file("missing.crt"), keyFile: files.key), "\(folder.file("missing.crt")): cannot be read (No such file or directory)"),
            (TlsSettings(certificateFile: files.certificate, keyFile: folder.file("missing.key")), "\(folder.file("missing.key")): cannot be read"),
            (TlsSettings(certificateFile: folder.file("text.pem"), keyFile: files.key), "\(folder.file("text.pem")): not a PEM certificate"),
            (TlsSettings(certificateFile: files.certificate, keyFile: other.key), "\(other.key): cannot be used with the certificate \(files.certificate)"),
            (TlsSettings(certificateFile: files.certificate, keyFile: folder.path), "TLS key \(folder.path): is not a file."),
        ]
        for (settings, expected) in cases {
            let error = #expect(throws: ConfigurationError.self) { try TlsCertificate(settings) }
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("\n") == false)
        }
        // The key open to every user: refused, with the fix; open to its group: used.
        #expect(chmod(files.key, 0o644) == 0)
        let open = #expect(throws: ConfigurationError.self) { try TlsCertificate(TlsSettings(certificateFile: files.certificate, keyFile: files.key)) }
        #expect(open?.message == "TLS key \(files.key): every local user can read it (mode 644); make it private: chmod o-rwx \(files.key)")
        #expect(chmod(files.key, 0o640) == 0)
        #expect(throws: Never.self) { try TlsCertificate(TlsSettings(certificateFile: files.certificate, keyFile: files.key)) }
        #expect(chmod(files.key, 0o600) == 0)
        // A key kept in an open certificate file.
        let both = folder.file("both.pem")
        try (String(contentsOfFile: files.certificate, encoding: .utf8) + String(contentsOfFile: files.key, encoding: .utf8)).write(toFile: both, atomically: false, encoding: .utf8)
        #expect(chmod(both, 0o644) == 0)
        let shared = #expect(throws: ConfigurationError.self) { try TlsCertificate(TlsSettings(certificateFile: both, keyFile: files.key)) }
        #expect(shared?.message.hasPrefix("TLS certificate \(both): holds a private key, and every local user can read it") == true)
        #expect(chmod(both, 0o640) == 0)
        #expect(throws: Never.self) { try TlsCertificate(TlsSettings(certificateFile: both, keyFile: files.key)) }
        // Expired, and not yet valid, by the clock the check is given.
        let settings = TlsSettings(certificateFile: files.certificate, keyFile: files.key)
        let expired = #expect(throws: ConfigurationError.self) { try TlsCertificate(settings, now: Date().addingTimeInterval(60 * 86_400)) }
        #expect(expired?.message.contains("expired on") == true)
        let early = #expect(throws: ConfigurationError.self) { try TlsCertificate(settings, now: Date().addingTimeInterval(-86_400)) }
        #expect(early?.message.contains("not valid before") == true)
        #expect(try TlsCertificate(settings).summary.hasPrefix("TLS certificate \(files.certificate) (valid until "))

        // The app's start says it as a ConfigurationError, and serves nothing.
        await #expect(throws: ConfigurationError.self) {
            try await startServer { $0.tls = TlsSettings(certificateFile: folder.file("missing.crt"), keyFile: files.key) }
        }
    }

    @Test("a client that never finishes its handshake is cut by the idle timeout")
    func stalledHandshake() async throws {
        let folder = try TemporaryFolder()
        let files = try TlsCertificateFiles(in: folder, name: "site")
        try await withServer({
            $0.tls = TlsSettings(certificateFile: files.certificate, keyFile: files.key)
            $0.connectionIdleTimeout = .milliseconds(300)
        }) { server in
            let silent = try await RawHttpClient.connect(port: server.port)
            // The first bytes of a ClientHello record, and nothing more.
            let partial = try await RawHttpClient.connect(port: server.port)
            try await partial.send([0x16, 0x03, 0x01, 0x02, 0x00, 0x01])
            #expect(await silent.waitForClose(timeout: 5))
            #expect(await partial.waitForClose(timeout: 5))
        }
    }

    @Test("files go through TLS whole, ranges and empty ones too, and a pipelined request after one is answered after it")
    func files() async throws {
        let folder = try TemporaryFolder(["public/small.txt": "small file", "public/empty.txt": ""])
        let size = 3 << 20 + 12_345
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        try Data(bytes).write(to: URL(fileURLWithPath: folder.file("public/big.bin")))
        let files = try TlsCertificateFiles(in: folder, name: "site")
        try await withServer({
            $0.tls = TlsSettings(certificateFile: files.certificate, keyFile: files.key)
            $0.publicFolder = folder.file("public")
        }) { server in
            let client = try await RawHttpClient.connect(port: server.port, tlsTrusting: files.certificate)
            try await client.send(
                "GET /big.bin HTTP/1.1\r\nHost: localhost\r\n\r\nGET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    + "GET /big.bin HTTP/1.1\r\nHost: localhost\r\nRange: bytes=100000-100009\r\n\r\nGET /small.txt HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    + "GET /empty.txt HTTP/1.1\r\nHost: localhost\r\n\r\nGET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let big = try await client.readResponse(timeout: 30)
            #expect(big.status == 200)
            #expect(big.body == bytes)
            #expect(try await client.readResponse().text == "Hello")
            let range = try await client.readResponse()
            #expect(range.status == 206)
            #expect(range.body == Array(bytes[100_000..<100_010]))
            #expect(try await client.readResponse().text == "small file")
            let empty = try await client.readResponse()
            #expect(empty.status == 200)
            #expect(empty.body.isEmpty)
            #expect(try await client.readResponse().text == "Hello")
            await client.close()
        }
    }

    @Test("a client that does not read holds one file open, not one per pipelined request")
    func pipelinedFilesWaitTheirTurn() async throws {
        let folder = try TemporaryFolder()
        let big = folder.file("public/big.bin")
        try FileManager.default.createDirectory(atPath: folder.file("public"), withIntermediateDirectories: true)
        try Data(repeating: 0x62, count: 3 << 20).write(to: URL(fileURLWithPath: big))
        let files = try TlsCertificateFiles(in: folder, name: "site")
        try await withServer({
            $0.tls = TlsSettings(certificateFile: files.certificate, keyFile: files.key)
            $0.publicFolder = folder.file("public")
        }) { server in
            let client = try await RawHttpClient.connect(port: server.port, pacedReads: true, tlsTrusting: files.certificate)
            // The write completes after the handshake, which needs the client's reads.
            let requests = String(repeating: "GET /big.bin HTTP/1.1\r\nHost: localhost\r\n\r\n", count: 10)
            let sent = Flag()
            let sending = Task {
                try await client.send(requests)
                sent.set()
            }
            for _ in 0..<100 where !sent.isSet {
                client.readMore()
                try await Task.sleep(for: .milliseconds(10))
            }
            try await sending.value
            // The client now reads nothing: the first answer stalls, and the others wait.
            var open = 0
            for _ in 0..<250 where open == 0 {
                try await Task.sleep(for: .milliseconds(20))
                open = try Self.openDescriptors(of: big)
            }
            #expect(open > 0, "the first answer never started")
            try await Task.sleep(for: .milliseconds(500))
            for _ in 0..<5 {
                open = max(open, try Self.openDescriptors(of: big))
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(open <= 2, "\(open) descriptors of the file are open")
            await client.close()
        }
    }

    @Test("a client that closes its sending side with close_notify gets its answers")
    func halfClose() async throws {
        let folder = try TemporaryFolder()
        let files = try TlsCertificateFiles(in: folder, name: "site")
        // As over plain HTTP: the route answering when the half-close arrives is cancelled (and
        // says so), the request behind it is answered, and the connection closes.
        try await withServer({ $0.tls = TlsSettings(certificateFile: files.certificate, keyFile: files.key) }, routes: waitRoute) { server in
            let client = try await RawHttpClient.connect(port: server.port, tlsTrusting: files.certificate)
            try await client.send("GET /wait HTTP/1.1\r\nHost: localhost\r\n\r\nGET /fast HTTP/1.1\r\nHost: localhost\r\n\r\n")
            try await client.closeOutput()
            #expect(try await client.readResponse().text == "waited")
            let last = try await client.readResponse()
            #expect(last.text == "fast")
            #expect(last.header("Connection") == "close")
            #expect(await client.waitForClose())
        }
    }

    @Test("a client that closes TCP without close_notify is taken as a half-close, and its connection freed")
    func raggedEof() async throws {
        let folder = try TemporaryFolder()
        let files = try TlsCertificateFiles(in: folder, name: "site")
        let holding = Flag(), ran = Flag()
        let routes: (App) -> Void = { app in
            app.get("/hold") { _ in
                holding.set()
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
                return "cancelled"
            }
            app.get("/after") { _ in
                ran.set()
                return "after"
            }
        }
        let tls: (inout Settings) -> Void = {
            $0.tls = TlsSettings(certificateFile: files.certificate, keyFile: files.key)
            $0.maxConnections = 1
        }
        try await withServer(tls, routes: routes) { server in
            // openssl's client, killed: the kernel closes its socket, and no close_notify is sent.
            let client = Process()
            client.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            client.arguments = ["s_client", "-connect", "127.0.0.1:\(server.port)", "-CAfile", files.certificate, "-verify_return_error", "-quiet"]
            let input = Pipe()
            client.standardInput = input
            client.standardOutput = FileHandle.nullDevice
            client.standardError = FileHandle.nullDevice
            try client.run()
            defer { if client.isRunning { kill(client.processIdentifier, SIGKILL) } }
            input.fileHandleForWriting.write(Data("GET /hold HTTP/1.1\r\nHost: localhost\r\n\r\nGET /after HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
            #expect(await holding.wait(upTo: 10))
            kill(client.processIdentifier, SIGKILL)
            client.waitUntilExit()
            // As a half-close: the route answering is cancelled and the request behind it runs.
            // An error would have closed the connection with the request never run.
            #expect(await ran.wait(upTo: 10))
            // The one connection allowed is free again.
            var answer: RawHttpClient.Response?
            for _ in 0..<50 where answer == nil {
                answer = try await Self.get(port: server.port, trusting: files.certificate)
                if answer == nil { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(answer?.text == "Hello")
        }
    }

    @Test("over the connection limit a TLS client is closed at once, and shutdown does not wait for idle clients")
    func refusalAndShutdown() async throws {
        let folder = try TemporaryFolder()
        let files = try TlsCertificateFiles(in: folder, name: "site")
        let server = try await startServer {
            $0.tls = TlsSettings(certificateFile: files.certificate, keyFile: files.key)
            $0.maxConnections = 1
            $0.shutdownTimeout = .seconds(5)
        }
        let first = try await RawHttpClient.connect(port: server.port, tlsTrusting: files.certificate)
        try await first.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(try await first.readResponse().text == "Hello")
        // A client that never starts its handshake is not held open for a 503.
        let over = try await RawHttpClient.connect(port: server.port)
        #expect(await over.waitForClose(timeout: 5))
        #expect(over.unreadBytes.isEmpty)
        // The first client idles on its keep-alive connection: shutdown closes it and returns.
        let started = ContinuousClock.now
        #expect(await server.shutdown())
        #expect(ContinuousClock.now - started < .seconds(4))
        #expect(await first.waitForClose())
    }

    @Test("the redirect port answers 308 to the same path over HTTPS, for the app's hosts only")
    func redirectPort() async throws {
        let folder = try TemporaryFolder()
        let files = try TlsCertificateFiles(in: folder, name: "site")
        try await withServer({
            $0.tls = TlsSettings(certificateFile: files.certificate, keyFile: files.key, redirectPort: 0)
        }) { server in
            let port = try #require(server.httpRedirectPort)
            #expect(port != server.port)
            let client = try await RawHttpClient.connect(port: port)
            try await client.send("POST /notes/1?edit=yes HTTP/1.1\r\nHost: localhost:\(port)\r\nContent-Length: 0\r\n\r\n")
            let redirect = try await client.readResponse()
            #expect(redirect.status == 308)
            #expect(redirect.header("Location") == "https://localhost:\(server.port)/notes/1?edit=yes")
            try await client.send("GET http://localhost/abs?x HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await client.readResponse().header("Location") == "https://localhost:\(server.port)/abs?x")
            try await client.send("GET / HTTP/1.1\r\nHost: [::1]:\(port)\r\n\r\n")
            #expect(try await client.readResponse().header("Location") == "https://[::1]:\(server.port)/")
            try await client.send("GET / HTTP/1.1\r\nHost: attacker.example\r\n\r\n")
            #expect(try await client.readResponse().status == 421)
            try await client.send("GET / HTTP/1.1\r\n\r\n")
            #expect(try await client.readResponse().status == 400)
            await client.close()
        }
        // A host the Host check lets through as a domain's suffix is not put in a Location.
        try await withServer({
            $0.tls = TlsSettings(certificateFile: files.certificate, keyFile: files.key, redirectPort: 0)
            $0.allowedHosts = [".example.com"]
        }) { server in
            let client = try await RawHttpClient.connect(port: try #require(server.httpRedirectPort))
            try await client.send("GET / HTTP/1.1\r\nHost: tools.example.com\r\n\r\n")
            #expect(try await client.readResponse().header("Location") == "https://tools.example.com:\(server.port)/")
            for host in ["evil.test/.example.com", "evil.test?.example.com", "evil.test#.example.com"] {
                try await client.send("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n")
                let refused = try await client.readResponse()
                #expect(refused.status == 421, "\(host)")
                #expect(refused.header("Location") == nil)
            }
            await client.close()
        }
        // With a public URL, it is the address.
        try await withServer({
            $0.tls = TlsSettings(certificateFile: files.certificate, keyFile: files.key, redirectPort: 0)
            $0.publicUrl = "https://tools.example.com"
        }) { server in
            let client = try await RawHttpClient.connect(port: try #require(server.httpRedirectPort))
            try await client.send("GET /a?b HTTP/1.1\r\nHost: tools.example.com\r\n\r\n")
            #expect(try await client.readResponse().header("Location") == "https://tools.example.com/a?b")
            await client.close()
        }
    }

    @Test("MICRO_TLS_CERT, MICRO_TLS_KEY and MICRO_HTTP_REDIRECT_PORT: both files or none, a port in range")
    func fromProcess() throws {
        let settings = try Settings.fromProcess(["MICRO_TLS_CERT": "/c.pem", "MICRO_TLS_KEY": "/k.pem", "MICRO_HTTP_REDIRECT_PORT": "8080"])
        #expect(settings.tls == TlsSettings(certificateFile: "/c.pem", keyFile: "/k.pem", redirectPort: 8080))
        #expect(try Settings.fromProcess([:]).tls == nil)
        for (variables, named) in [
            (["MICRO_TLS_CERT": "/c.pem"], "MICRO_TLS_CERT is set without MICRO_TLS_KEY"),
            (["MICRO_TLS_KEY": "/k.pem"], "MICRO_TLS_KEY is set without MICRO_TLS_CERT"),
            (["MICRO_HTTP_REDIRECT_PORT": "80"], "MICRO_HTTP_REDIRECT_PORT is set without"),
            (["MICRO_TLS_CERT": "/c.pem", "MICRO_TLS_KEY": "/k.pem", "MICRO_HTTP_REDIRECT_PORT": "http"], "MICRO_HTTP_REDIRECT_PORT is 'http'"),
        ] {
            let error = #expect(throws: ConfigurationError.self) { try Settings.fromProcess(variables) }
            #expect(error?.message.hasPrefix(named) == true, "\(error?.message ?? "")")
        }
        var same = Settings()
        same.tls = TlsSettings(certificateFile: "/c.pem", keyFile: "/k.pem", redirectPort: same.port)
        #expect(same.problems().contains { $0.hasPrefix("settings.tls.redirectPort") })
    }

    // MARK: Helpers

    /// How many of this process's descriptors are open on `path`.
    static func openDescriptors(of path: String) throws -> Int {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name)) == target
        }
    }

    /// One GET of `/hello` over a new TLS connection that trusts only `certificate`; nil when
    /// the handshake fails.
    static func get(port: Int, trusting certificate: String) async throws -> RawHttpClient.Response? {
        let client = try await RawHttpClient.connect(port: port, tlsTrusting: certificate)
        defer { Task { await client.close() } }
        // A handshake that failed has closed the connection already.
        try? await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        return try? await client.readResponse(timeout: 5)
    }
}
