import NIOCore
import Testing
@testable import Micro

/// What a connection schedules on its event loop: one deadline check at a time, whatever the
/// connection did, and nothing that holds its handler once it closed.
@Suite struct ConnectionTimerTests {
    final class WeakHandler: @unchecked Sendable {
        weak var handler: HttpHandler?
    }

    @Test func aClosedKeepAliveConnectionLeavesNoCheckBehind() async throws {
        // A header timeout of 400 ms makes the check run every 100 ms. Each answer is sent
        // before a check finds it sent, which then starts the idle timer: if that scheduled a
        // second check beside the one already under way, the first would be lost to
        // `channelInactive` and keep the handler (and what it holds) until it fired.
        try await withServer({ $0.headerTimeout = .milliseconds(400) }) { server in
            let client = try await RawHttpClient.connect(port: server.port)
            for _ in 0..<5 {
                try await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
                #expect(try await client.readResponse().text == "Hello")
                try await Task.sleep(for: .milliseconds(150))
            }
            let channel = try #require(server.server.connections.open.first)
            let weak = WeakHandler()
            try await channel.eventLoop.submit {
                weak.handler = try channel.pipeline.syncOperations.handler(type: HttpHandler.self)
            }.get()
            await client.close()
            try await channel.closeFuture.get()
            let alive = try await channel.eventLoop.submit { weak.handler != nil }.get()
            #expect(!alive, "a deadline check outlived the connection")
        }
    }
}

extension ConnectionTimerTests {
    @Test func aClientThatClosesAfterARefusalLeavesNoCloseBehind() async throws {
        // After a refusal the server waits a second for the client to read it and close
        // (``LingeringClose``); a client that closes first ends that wait.
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await client.readResponse().text == "Hello")
            let channel = try #require(server.server.connections.open.first)
            let weak = WeakHandler()
            try await channel.eventLoop.submit {
                weak.handler = try channel.pipeline.syncOperations.handler(type: HttpHandler.self)
            }.get()
            try await client.send("GARBAGE\r\n\r\n")
            #expect(try await client.readResponse().status == 400)
            await client.close()
            try await channel.closeFuture.get()
            let alive = try await channel.eventLoop.submit { weak.handler != nil }.get()
            #expect(!alive, "the lingering close outlived the connection")
        }
    }
}
