import Dispatch
import Foundation
import Logging
import NIOCore
import NIOHTTP1

extension App {
    /// Starts serving on the settings' host and port and returns at once; for tests and for
    /// apps that embed Micro. Throws a ``ConfigurationError`` for a mistake in the app's
    /// definition or settings, and the socket's error when the address cannot be bound.
    ///
    /// ```swift
    /// let server = try await app.start()
    /// print(server.port)
    /// await server.shutdown()
    /// ```
    public func start() async throws -> RunningServer {
        let responder = try makeResponder()
        return RunningServer(try await HttpServer.start(responder))
    }

    /// Serves the app until SIGINT or SIGTERM, then shuts down gracefully: stops accepting,
    /// finishes the requests in flight (up to `shutdownTimeout`), and returns. SIGHUP meanwhile
    /// reloads (see ``reload()``: the users of ``Authentication`` when they come from a file)
    /// and the server goes on serving.
    ///
    /// When the app cannot start (a bad setting, a bad route pattern, a port in use) it
    /// prints the reason and exits with status 1, without a crash trace; use ``start()`` to
    /// handle that yourself.
    public func run() async throws {
        let server: RunningServer
        do {
            server = try await start()
        } catch {
            let reason = (error as? ConfigurationError)?.message ?? "cannot listen on \(settings.host):\(settings.port): \(error)"
            FileHandle.standardError.write(Data("Micro cannot start: \(reason)\n".utf8))
            exit(1)
        }
        let settings = settings
        // Caught from here on, before the start-up line: whoever waits for it may signal at once.
        let signals = ShutdownSignal([SIGINT, SIGTERM]) { [self] in
            guard !reloadables.isEmpty else {
                logger.info("Received SIGHUP: nothing to reload")
                return
            }
            logger.info("Received SIGHUP: reloading")
            try? reload()  // each failure is logged, and the last good state kept
        }
        logListening(server)
        let signal = await signals.wait()
        logger.info("Received \(signal == SIGINT ? "SIGINT" : "SIGTERM"): finishing requests in flight (up to \(settings.shutdownTimeout))")
        logStopped(clean: await server.shutdown())
    }

    /// The start-up line: where the app listens, in which environment, as which process.
    func logListening(_ server: RunningServer) {
        logger.info("Micro listening on http://\(server.host):\(server.port) (\(settings.environment.rawValue), pid \(getpid()))")
    }

    /// The last line: whether the requests in flight all finished.
    func logStopped(clean: Bool) {
        logger.info(clean ? "Stopped." : "Stopped; some connections were still busy and were closed.")
    }
}

/// A running server, as ``App/start()`` returns it.
public struct RunningServer: Sendable {
    private let server: HttpServer

    init(_ server: HttpServer) { self.server = server }

    /// The address it listens on.
    public var host: String { server.host }
    /// The port it listens on.
    public var port: Int { server.port }

    /// Stops accepting, lets requests in flight finish (bounded by `shutdownTimeout`), closes.
    /// Returns whether everything finished in time. When the calling task is cancelled, it
    /// stops waiting and closes the connections still busy at once.
    @discardableResult
    public func shutdown() async -> Bool { await server.shutdown() }
}

/// Catches SIGINT and SIGTERM (their default action turned off) until the first arrives, and
/// SIGHUP meanwhile, from the moment it is made.
final class ShutdownSignal: Sendable {
    private struct State {
        var sources: [any DispatchSourceSignal] = []
        var received: Int32?
        var waiter: CheckedContinuation<Int32, Never>?
    }

    private let state = Locked(State())

    /// Starts catching `signals`, and SIGHUP, which calls `hangup` each time, on a queue of its
    /// own so that a slow reload never holds up a shutdown.
    init(_ signals: [Int32], hangup: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "micro.signals")
        let reloads = DispatchQueue(label: "micro.reload")
        state.withLock { state in
            for number in signals + [SIGHUP] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                if number == SIGHUP {
                    source.setEventHandler { reloads.async(execute: hangup) }
                } else {
                    source.setEventHandler { [weak self] in self?.receive(number) }
                }
                source.resume()
                state.sources.append(source)
            }
        }
    }

    /// The first of the signals, at once when it has already come.
    func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let received = state.withLock { state -> Int32? in
                if state.received == nil { state.waiter = continuation }
                return state.received
            }
            if let received { continuation.resume(returning: received) }
        }
    }

    private func receive(_ number: Int32) {
        let waiter = state.withLock { state -> CheckedContinuation<Int32, Never>? in
            guard state.received == nil else { return nil }
            state.received = number
            // Nothing more is caught (signals stay ignored): a second Ctrl-C or a SIGHUP does not
            // cut the graceful shutdown short.
            state.sources.forEach { $0.cancel() }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: number)
    }
}

extension App {
    /// Answers one request given by its parts, without a socket: what `MicroTesting`'s
    /// `TestClient` uses. Throws only when the app's definition is invalid.
    public func respond(
        method: HttpMethod, uri: String, headers: HttpHeaders = [:], body: ByteBuffer = ByteBuffer(),
        remoteAddress: String? = nil
    ) async throws -> Response {
        let responder = try makeResponder()
        if let length = headers.first(name: "Content-Length").flatMap(Int.init), length > responder.settings.bodyLimit {
            // The server refuses it from the head alone; the test client answers the same.
            return Response.refusal(.payloadTooLarge, Response.bodyTooLarge(limit: responder.settings.bodyLimit))
        }
        return await responder.respond(method: method, uri: uri, headers: headers, body: body, remoteAddress: remoteAddress)
    }
}

extension App {
    /// A CSRF token for the session the given `Cookie` headers carry, and the response that
    /// sets the session cookie when a new session had to begin: for `MicroTesting`, whose
    /// client sends forms the way a browser does after loading the app's page.
    @_spi(Testing)
    public func issueCsrfToken(headers: HttpHeaders) throws -> (token: String, response: Response) {
        try makeResponder().issueCsrfToken(headers: headers)
    }
}
