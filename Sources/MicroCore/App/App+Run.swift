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
        try await prepare()
        let responder = try makeResponder()
        guard let tlsSettings = responder.settings.tls else { return RunningServer(try await HttpServer.start(responder)) }
        let tls = try TlsContext(tlsSettings)
        let server = try await HttpServer.start(responder, tls: tls)
        var redirect: HttpServer?
        if let redirectPort = tlsSettings.redirectPort {
            var redirectSettings = responder.serverSettings
            redirectSettings.port = redirectPort
            // Redirects need no bodies, and a small share of the descriptors the app counts on.
            redirectSettings.bodyLimit = min(redirectSettings.bodyLimit, 64 << 10)
            redirectSettings.maxConnections = max(1, redirectSettings.maxConnections / 10)
            let redirecting = HttpsRedirect(settings: responder.settings, serverSettings: redirectSettings, tlsPort: server.port, logger: logger)
            do { redirect = try await HttpServer.start(redirecting) } catch {
                await server.shutdown()
                throw ConfigurationError("cannot listen on \(redirectSettings.host):\(redirectPort) (settings.tls.redirectPort, MICRO_HTTP_REDIRECT_PORT): \(error)")
            }
        }
        // Read again with the users on SIGHUP, while this server runs.
        addReloadable(tls)
        return RunningServer(server, redirect: redirect) { [weak self] in
            self?.updateReloadables { $0.removeAll { $0 === tls } }
        }
    }

    /// Serves the app until SIGINT or SIGTERM, then shuts down gracefully: stops accepting,
    /// finishes the requests in flight (up to `shutdownTimeout`), and returns. SIGHUP meanwhile
    /// reloads (see ``reload()``: the users of `Authentication` when they come from a file)
    /// and the server goes on serving.
    ///
    /// When the app cannot start (a bad setting, a bad route pattern, a port in use) it
    /// prints the reason and exits with status 1, without a crash trace; use ``start()`` to
    /// handle that yourself.
    public func run() async throws {
        let server: RunningServer
        do {
            server = try await start()
        } catch let error as ConfigurationError {
            Self.exitCannotStart(error)
        } catch {
            Self.exitCannotStart(ConfigurationError("cannot listen on \(settings.host):\(settings.port): \(error)"))
        }
        let settings = settings
        // Caught from here on, before the start-up line: whoever waits for it may signal at once.
        let signals = await ShutdownSignal.catching([SIGINT, SIGTERM]) { [self] in
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
        logger.info("Micro listening on \(server.server.isTls ? "https" : "http")://\(server.host):\(server.port) (\(settings.environment.rawValue), pid \(getpid()))")
        if let redirect = server.redirect {
            logger.info("Redirecting http://\(redirect.host):\(redirect.port) to HTTPS")
        }
    }

    /// The last line: whether the requests in flight all finished.
    func logStopped(clean: Bool) {
        logger.info(clean ? "Stopped." : "Stopped; some connections were still busy and were closed.")
    }
}
