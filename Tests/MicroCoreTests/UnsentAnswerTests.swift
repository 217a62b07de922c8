@testable import MicroCore
import MicroTestSupport
import NIOCore
import Testing


/// A keep-alive answer is written without asking NIO to report its end, so closing the
/// connection later (after the client's half-close, or at shutdown) must first wait for what
/// is still unsent: the client gets the whole answer, then the close.
@Suite struct UnsentAnswerTests {
    /// More than loopback's socket buffers take, so part of it waits in NIO while the client
    /// does not read (`askForTheBigAnswer` requires it). Not much more: larger answers made
    /// the test heavy enough to slow the other suites' servers on the shared event loops.
    private static let size = 8 << 20

    private static func bigRoute(_ app: App) {
        app.get("/big") { _ in String(repeating: "a", count: size) }
    }

    /// Reads the whole answer; records how much arrived when the connection closed first.
    private static func expectWholeAnswer(_ client: RawHttpClient) async {
        do {
            let response = try await client.readResponse(timeout: 30)
            #expect(response.status == 200)
            #expect(response.body.count == size)
        } catch {
            Issue.record("the answer was cut: \(client.receivedCount) bytes arrived in all")
        }
    }

    /// Sends the request and waits until the answer's first bytes arrive (it is written);
    /// then requires that NIO still holds part of it, or the test would show nothing.
    private static func askForTheBigAnswer(_ client: RawHttpClient, server: RunningServer) async throws {
        try await client.send("GET /big HTTP/1.1\r\nHost: localhost\r\n\r\n")
        while client.receivedCount == 0 {
            client.readMore()
            try await Task.sleep(for: .milliseconds(10))
        }
        let connection = try #require(server.server.connections.open.first)
        let unsent = try await connection.unsentBytes()
        try #require(unsent > 0, "the socket's buffers took the whole answer: nothing waited in NIO, so the test shows nothing")
    }

    @Test func aHalfCloseAfterABigAnswerStillDeliversAllOfIt() async throws {
        try await withServer(routes: Self.bigRoute) { server in
            let client = try await RawHttpClient.connect(port: server.port, pacedReads: true)
            try await Self.askForTheBigAnswer(client, server: server)
            try await client.closeOutput()
            await Self.expectWholeAnswer(client)
            #expect(await client.waitForClose(timeout: 5), "the connection stayed open after the answer")
        }
    }

    @Test func aShutdownAfterABigAnswerStillDeliversAllOfIt() async throws {
        let server = try await startServer({ $0.shutdownTimeout = .seconds(20) }, routes: Self.bigRoute)
        let client = try await RawHttpClient.connect(port: server.port, pacedReads: true)
        try await Self.askForTheBigAnswer(client, server: server)
        // The connection counts as idle once its answer is written: the shutdown closes it
        // after the rest of the answer, however long the client takes to read it (longer than
        // the second a closing connection lingers once its answers are written).
        async let clean = server.shutdown()
        try await Task.sleep(for: .milliseconds(1500))
        await Self.expectWholeAnswer(client)
        #expect(await client.waitForClose(timeout: 5), "the connection stayed open after the answer")
        #expect(await clean)
    }
}
