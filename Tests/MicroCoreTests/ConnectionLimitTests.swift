import Foundation
@testable import MicroCore
import MicroTestSupport
import NIOCore
import Testing


/// `settings.maxConnections` over a real socket on 127.0.0.1: a connection beyond the limit
/// gets a `503` and is closed, a flood of them leaves the server serving, and the setting is
/// read from `MICRO_MAX_CONNECTIONS` and checked at start-up.
@Suite struct ConnectionLimitTests {
    @Test func aConnectionOverTheLimitGets503AndIsClosed() async throws {
        let server = try await startLimitedServer(maxConnections: 2)
        let first = try await RawHttpClient.connect(port: server.port)
        let second = try await RawHttpClient.connect(port: server.port)
        for client in [first, second] {
            try await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await client.readResponse(timeout: 2).status == 200)
        }

        let third = try await RawHttpClient.connect(port: server.port)
        try? await third.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let refused = try await third.readResponse(timeout: 2)
        #expect(refused.status == 503)
        #expect(refused.header("Connection")?.lowercased() == "close")
        #expect(refused.header("Retry-After") == "1")
        #expect(refused.text.contains("connection limit"))
        #expect(await third.waitForClose(timeout: 3), "the refused connection stayed open")

        // The two admitted ones are still served on the same connections.
        for client in [first, second] {
            try await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await client.readResponse(timeout: 2).text == "Hello")
        }

        // Once one leaves, a newcomer takes its place.
        await first.close()
        let newcomer = try await servedClient(port: server.port)
        #expect(newcomer != nil, "no room for a new connection after one closed")
        await newcomer?.close()
        await second.close()
        await server.shutdown()
    }

    @Test func aFloodOverTheLimitIsRefusedWithoutHarm() async throws {
        let server = try await startLimitedServer(maxConnections: 1)
        let admitted = try await RawHttpClient.connect(port: server.port)
        try await admitted.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(try await admitted.readResponse(timeout: 2).status == 200)

        // More than the refusals answered at once: the rest are closed without an answer.
        let count = Connections.answeredRefusalsLimit + 36
        var flood: [RawHttpClient] = []
        for _ in 0..<count {
            // The server may close one before it is fully connected.
            if let client = try? await RawHttpClient.connect(port: server.port) { flood.append(client) }
        }
        var answered = 0
        for client in flood {
            #expect(await client.waitForClose(timeout: 3), "a refused connection stayed open")
            if let response = try? await client.readResponse(timeout: 0) {
                #expect(response.status == 503)
                answered += 1
            }
        }
        #expect(answered >= 1, "no refused connection was told why")

        // The admitted connection was never disturbed, and the server still accepts.
        try await admitted.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(try await admitted.readResponse(timeout: 2).text == "Hello")
        await admitted.close()
        let newcomer = try await servedClient(port: server.port)
        #expect(newcomer != nil, "no room for a new connection after the flood")
        await newcomer?.close()
        await server.shutdown()
    }

    @Test func theLimitComesFromTheProcessAndIsChecked() async throws {
        #expect(try Settings.fromProcess(["MICRO_MAX_CONNECTIONS": "500"]).maxConnections == 500)
        #expect(try Settings.fromProcess([:]).maxConnections == Settings().maxConnections)
        for bad in ["0", "-3", "lots", "1.5"] {
            do {
                _ = try Settings.fromProcess(["MICRO_MAX_CONNECTIONS": bad])
                Issue.record("MICRO_MAX_CONNECTIONS=\(bad) was accepted")
            } catch {
                #expect(error.message.contains("MICRO_MAX_CONNECTIONS is '\(bad)'"))
            }
        }

        let none = testApp { $0.maxConnections = 0 }
        #expect(await startFailure(none)?.message.contains("settings.maxConnections is 0") == true)

        // More connections than the process may open files is refused with the way out.
        if let files = Settings.openFilesLimit {
            let tooMany = testApp { $0.maxConnections = files }
            let message = await startFailure(tooMany)?.message ?? ""
            #expect(message.contains("ulimit -n"))
            #expect(message.contains("\(files) files"))
        }
    }

    @Test func theDefaultFitsTheOpenFilesLimit() {
        let limit = Settings().maxConnections
        #expect((1...10_000).contains(limit))
        if let files = Settings.openFilesLimit, files > Settings.reservedFiles + 2 {
            // Room for every connection to send a file, and for the server's own descriptors.
            #expect(limit * 2 + Settings.reservedFiles <= files)
        }
        #expect(Settings().problems().isEmpty)
    }

    @Test func refusalsAreLoggedAtOnceThenCountedEveryTenSeconds() {
        var log = RefusalLog()
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        let quiet = TimeAmount.seconds(RefusalLog.quietSeconds)

        #expect(log.refused(now: start) == .first(summaryAt: start + quiet))
        for second in 1...5 { #expect(log.refused(now: start + .seconds(Int64(second))) == nil) }
        #expect(log.summary(now: start + quiet) == .summary(count: 5, nextAt: start + quiet + quiet))

        // Still refusing: counted again for the next line.
        #expect(log.refused(now: start + .seconds(12)) == nil)
        #expect(log.summary(now: start + quiet + quiet) == .summary(count: 1, nextAt: start + quiet * 3))

        // A quiet spell with none ends the counting; the next refusal is logged at once.
        #expect(log.summary(now: start + quiet * 3) == nil)
        let later = start + .seconds(60)
        #expect(log.refused(now: later) == .first(summaryAt: later + quiet))
    }
}

// MARK: - Helpers

/// An app on a free port with `/hello`, test settings and at most `maxConnections` connections.
private func startLimitedServer(maxConnections: Int) async throws -> RunningServer {
    let app = testApp {
        $0.maxConnections = maxConnections
        $0.shutdownTimeout = .seconds(1)
    }
    app.get("/hello") { _ in "Hello" }
    return try await app.start()
}

/// A new connection that the server serves, trying for up to 5 seconds while the server
/// notices that an earlier one closed; nil when none was served.
private func servedClient(port: Int) async throws -> RawHttpClient? {
    let deadline = ContinuousClock.now + .seconds(5)
    while ContinuousClock.now < deadline {
        let client = try await RawHttpClient.connect(port: port)
        try? await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
        if let response = try? await client.readResponse(timeout: 2), response.status == 200 { return client }
        await client.close()
        try await Task.sleep(for: .milliseconds(20))
    }
    return nil
}
