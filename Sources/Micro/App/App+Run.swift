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
    /// finishes the requests in flight (up to `shutdownTimeout`), and returns.
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
        logger.info("Micro listening on http://\(server.host):\(server.port) (\(settings.environment.rawValue), pid \(getpid()))")
        let signal = await ShutdownSignal.wait(for: [SIGINT, SIGTERM])
        logger.info("Received \(signal == SIGINT ? "SIGINT" : "SIGTERM"): finishing requests in flight (up to \(settings.shutdownTimeout)s)")
        let clean = await server.shutdown()
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
    /// Returns whether everything finished in time.
    @discardableResult
    public func shutdown() async -> Bool { await server.shutdown() }
}

/// Waits for the first of some signals, with their default action turned off meanwhile.
enum ShutdownSignal {
    static func wait(for signals: [Int32]) async -> Int32 {
        await withCheckedContinuation { continuation in
            let queue = DispatchQueue(label: "micro.signals")
            queue.sync {
                var sources: [any DispatchSourceSignal] = []
                var resumed = false
                for number in signals {
                    signal(number, SIG_IGN)
                    let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                    source.setEventHandler {
                        guard !resumed else { return }
                        resumed = true
                        sources.forEach { $0.cancel() }
                        continuation.resume(returning: number)
                    }
                    source.resume()
                    sources.append(source)
                }
            }
        }
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
            return Responder.refusal(.payloadTooLarge, Responder.bodyTooLarge(limit: responder.settings.bodyLimit))
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
