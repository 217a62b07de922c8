import ServiceLifecycle

/// The app as a swift-service-lifecycle `Service`, to run in a `ServiceGroup` beside other
/// services (a job queue, a metrics exporter, a database client).
///
/// It serves until the group shuts down gracefully, then stops accepting, finishes the
/// requests in flight (up to ``Settings/shutdownTimeout``) and returns. The group owns the
/// signals: unlike ``App/run()``, the service catches none (SIGHUP reloads nothing here; call
/// ``App/reload()`` yourself). When the group cancels it instead, it closes the connections
/// still busy at once.
///
/// ```swift
/// import Micro
/// import ServiceLifecycle
///
/// let group = ServiceGroup(
///     services: [jobs, AppService(app)],
///     gracefulShutdownSignals: [.sigterm, .sigint],
///     logger: app.logger)
/// try await group.run()
/// ```
///
/// A group shuts its services down in the reverse of their order: list the app after the
/// services its routes use, so that it has finished its requests before they stop.
public struct AppService: Service {
    /// The app it serves.
    public let app: App
    private let onStart: @Sendable (RunningServer) async -> Void

    /// The service of `app`; `onStart` is called once the server listens (to learn the port
    /// it picked when the settings said 0, say).
    public init(_ app: App, onStart: @escaping @Sendable (RunningServer) async -> Void = { _ in }) {
        self.app = app
        self.onStart = onStart
    }

    /// Serves until the group's graceful shutdown (or its cancellation). Throws a
    /// ``ConfigurationError`` for a mistake in the app's definition or settings, and the
    /// socket's error when the address cannot be bound: the group then stops.
    public func run() async throws {
        let server = try await app.start()
        app.logListening(server)
        await onStart(server)
        do {
            try await gracefulShutdown()
            app.logger.info("Shutting down: finishing requests in flight (up to \(app.settings.shutdownTimeout))")
        } catch {
            // Cancelled: the shutdown below does not wait for the requests in flight.
            app.logger.info("Cancelled: closing every connection")
        }
        app.logStopped(clean: await server.shutdown())
    }
}
