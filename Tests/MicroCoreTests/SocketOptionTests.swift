import Glibc
@testable import MicroCore
import MicroTestSupport
import MicroTesting
import NIOCore
import Testing

/// The options on an accepted connection, read back from the kernel: `TCP_NODELAY` set at the
/// TCP level (not `SO_DEBUG`, the socket-level option of the same number, which only a
/// privileged process may set), and an option the system refuses logged once, never a
/// connection closed for it.
@Suite struct SocketOptionTests {
    @Test func anAcceptedConnectionHasNoDelayAndNoDebugging() async throws {
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await client.readResponse().status == 200)

            let accepted = server.server.connections.open
            #expect(accepted.count == 1)
            for channel in accepted {
                #expect(try await channel.getOption(.tcpOption(.tcp_nodelay)) == 1)
                #expect(try await channel.getOption(.socket(SocketOptionLevel(SOL_SOCKET), SocketOptionName(SO_DEBUG))) == 0)
            }
            await client.close()
        }
    }

    @Test func aRequestKnowsTheServersPortItCameToWhateverItsHostSays() async throws {
        try await withServer(routes: { app in app.get("/port") { request in request.localPort.map(String.init) ?? "none" } }) { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send("GET /port HTTP/1.1\r\nHost: localhost:18539\r\n\r\n")
            #expect(try await client.readResponse().text == String(server.port))
            await client.close()
        }
    }

    @Test func anOptionTheSystemRefusesIsLoggedOnceAndTheConnectionServed() async throws {
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await client.readResponse().status == 200)

            // An option number no protocol has: every system refuses it, root included.
            let refused = ConnectionSocketOptions.Option(
                option: .socket(SocketOptionLevel(IPPROTO_TCP), SocketOptionName(0x7ead)), value: 1, name: "BOGUS")
            let log = LogRecorder()
            let options = ConnectionSocketOptions(logger: log.logger, options: [refused, refused] + ConnectionSocketOptions.standard)
            for channel in server.server.connections.open {
                try await channel.eventLoop.submit { options.apply(to: channel) }.get()
                try await channel.eventLoop.submit { options.apply(to: channel) }.get()
                // The options after the refused one are still set.
                #expect(try await channel.getOption(.tcpOption(.tcp_nodelay)) == 1)
            }
            let warnings = log.messages(at: .warning)
            #expect(warnings.count == 1)
            #expect(warnings.first?.contains("BOGUS") == true)

            try await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await client.readResponse().text == "Hello")
            await client.close()
        }
    }
}
