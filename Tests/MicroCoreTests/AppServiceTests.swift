import Logging
import MicroCore
import MicroTestSupport
import NIOConcurrencyHelpers
import ServiceLifecycle
import Testing

/// The app as a swift-service-lifecycle service, in a group beside another service, over a
/// real socket.
@Suite struct AppServiceTests {
    @Test func theGroupsGracefulShutdownLetsTheRequestInFlightFinishThenStopsTheOtherServices() async throws {
        let entered = Flag()
        let release = Flag()
        // Long, so that only a finished request can make the shutdown clean.
        let app = testApp { $0.shutdownTimeout = .seconds(60) }
        app.get("/slow") { _ in
            entered.set()
            _ = await release.wait(upTo: 10)
            return "finished"
        }
        let other = WaitingService()
        let (started, starting) = AsyncStream.makeStream(of: RunningServer.self)
        let group = ServiceGroup(
            services: [other, AppService(app, onStart: { starting.yield($0) })], logger: quietLogger)
        let running = Task { try await group.run() }
        defer { running.cancel() }

        var servers = started.makeAsyncIterator()
        let server = try #require(await servers.next())
        let client = try await RawHttpClient.connect(port: server.port)
        try await client.send("GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n")
        try #require(await entered.wait(), "the request never reached the route")

        await group.triggerGracefulShutdown()
        #expect(await refusesConnections(port: server.port), "the server still accepts connections")
        // The app is listed last, so it is shut down first; the other service waits for it.
        #expect(!other.stopped.isSet, "the other service stopped before the app had finished")

        release.set()
        let response = try await client.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "finished")
        try await running.value
        #expect(other.stopped.isSet)
        #expect(await client.waitForClose(timeout: 2))
    }

    @Test func anAppThatCannotStartFailsTheGroup() async throws {
        let app = testApp()
        app.get("no-slash") { _ in "never" }
        let group = ServiceGroup(services: [WaitingService(), AppService(app)], logger: quietLogger)
        await #expect(throws: ConfigurationError.self) { try await group.run() }
    }

    @Test func aCancelledGroupClosesTheBusyConnectionsAtOnce() async throws {
        let entered = Flag()
        // Longer than the test waits: only the cancellation can close the connection in time.
        let app = testApp { $0.shutdownTimeout = .seconds(60) }
        app.get("/stuck") { _ in
            entered.set()
            try? await Task.sleep(for: .seconds(30))
            return "too late"
        }
        let (started, starting) = AsyncStream.makeStream(of: RunningServer.self)
        let group = ServiceGroup(services: [AppService(app, onStart: { starting.yield($0) })], logger: quietLogger)
        let running = Task { try await group.run() }

        var servers = started.makeAsyncIterator()
        let server = try #require(await servers.next())
        let client = try await RawHttpClient.connect(port: server.port)
        try await client.send("GET /stuck HTTP/1.1\r\nHost: localhost\r\n\r\n")
        try #require(await entered.wait(), "the request never reached the route")

        running.cancel()
        #expect(await client.waitForClose(timeout: 5), "the busy connection was left open")
        _ = try? await running.value
    }
}

/// A service that runs until the group shuts it down gracefully, and says when it has.
private final class WaitingService: Service {
    let stopped = Flag()

    func run() async throws {
        try? await gracefulShutdown()
        stopped.set()
    }
}

private let quietLogger: Logger = {
    var logger = Logger(label: "service-group")
    logger.logLevel = .error
    return logger
}()

/// Whether a new connection to `port` is refused within a few seconds, as it is once the
/// server has stopped accepting.
private func refusesConnections(port: Int) async -> Bool {
    for _ in 0..<200 {
        do {
            let client = try await RawHttpClient.connect(port: port, timeout: 1)
            await client.close()
        } catch {
            return true
        }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return false
}
