@testable import MicroCore
import MicroTestSupport
import NIOCore
import Testing

/// What a connection leaves behind when it closes: no deadline check or lingering close that
/// holds its handler, and no request that waited in it.
@Suite struct ClosedConnectionTests {
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
            let interval = try await channel.withHttpHandler { handler in
                weak.handler = handler
                return handler.checkInterval
            }
            #expect(interval < .milliseconds(150), "no check ran between the answers: the test shows nothing")
            await client.close()
            try await channel.closeFuture.get()
            let alive = try await channel.eventLoop.submit { weak.handler != nil }.get()
            #expect(!alive, "a deadline check outlived the connection")
        }
    }

    @Test func aClientThatClosesAfterARefusalLeavesNoCloseBehind() async throws {
        // After a refusal the server waits a second for the client to read it and close
        // (``LingeringClose``); a client that closes first ends that wait.
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await client.readResponse().text == "Hello")
            let channel = try #require(server.server.connections.open.first)
            let weak = WeakHandler()
            try await channel.withHttpHandler { weak.handler = $0 }
            try await client.send("GARBAGE\r\n\r\n")
            #expect(try await client.readResponse().status == 400)
            let closing = ContinuousClock.now
            await client.close()
            try await channel.closeFuture.get()
            // Closed by the client's close, not by the lingering close's own end (which would
            // have let go of the handler by itself).
            #expect(ContinuousClock.now - closing < .seconds(1), "the lingering close ended first: the test shows nothing")
            let alive = try await channel.eventLoop.submit { weak.handler != nil }.get()
            #expect(!alive, "the lingering close outlived the connection")
        }
    }

    @Test func aClosedConnectionDropsTheRequestsWaitingBehindARouteThatIgnoresCancellation() async throws {
        // The route's task keeps the handler until the route returns, whatever the client did.
        let entered = Flag()
        let release = Flag()
        try await withServer(routes: { app in
            app.get("/stubborn") { _ in
                entered.set()
                // A detached task is not cancelled with the route's: a call that does not heed
                // cancellation.
                await Task.detached { _ = await release.wait(upTo: 10) }.value
                return "done"
            }
        }) { server in
            defer { release.set() }
            let client = try await RawHttpClient.connect(port: server.port)
            let waiting = "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 4096\r\n\r\n" + String(repeating: "x", count: 4096)
            try await client.send("GET /stubborn HTTP/1.1\r\nHost: localhost\r\n\r\n" + waiting + waiting)
            try #require(await entered.wait())
            let channel = try #require(server.server.connections.open.first)
            let weak = WeakHandler()
            let waitedBefore = try await channel.withHttpHandler { handler in
                weak.handler = handler
                return !handler.waiting.isEmpty
            }
            #expect(waitedBefore, "nothing waited behind the route: the test shows nothing")
            // A reset, not a close: a client's close may be a half-close, whose requests are
            // all answered before the connection closes.
            try await client.reset()
            try await channel.closeFuture.get()
            let state = try await channel.eventLoop.submit { (weak.handler != nil, weak.handler?.waiting.isEmpty ?? true) }.get()
            #expect(state.0, "the route's task no longer holds the handler: the test shows nothing")
            #expect(state.1, "the closed connection kept the requests that waited")
        }
    }
}
