import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOPosix
import NIOSSL

/// The app served over HTTP/1.1 on SwiftNIO: keep-alive, pipelining, limits (at most
/// `settings.maxConnections` connections, see ``Connections``), timeouts, and a graceful
/// shutdown (stop accepting, finish what is in flight, close).
final class HttpServer: Sendable {
    /// The address it listens on.
    let host: String
    /// The port it listens on (the one picked when the settings said 0).
    let port: Int
    /// Whether it serves HTTPS.
    let isTls: Bool
    private let channel: any Channel
    private let quiesce: ServerQuiescingHelper
    let connections: Connections
    private let shutdownTimeout: Double

    private init(
        channel: any Channel, quiesce: ServerQuiescingHelper, connections: Connections, host: String, isTls: Bool,
        shutdownTimeout: Double
    ) {
        self.channel = channel
        self.isTls = isTls
        self.quiesce = quiesce
        self.connections = connections
        self.host = host
        self.port = channel.localAddress?.port ?? 0
        self.shutdownTimeout = shutdownTimeout
    }

    /// Binds to the settings' host and port and starts serving `responder`, over TLS with
    /// `tls`'s current certificate when it is given.
    static func start(_ responder: any HttpResponding, tls: TlsContext? = nil) async throws -> HttpServer {
        let settings = responder.serverSettings
        let group = MultiThreadedEventLoopGroup.singleton
        let quiesce = ServerQuiescingHelper(group: group)
        let fileIO = NonBlockingFileIO(threadPool: .singleton)
        let connections = Connections(limit: settings.maxConnections, logger: responder.logger)
        let socketOptions = ConnectionSocketOptions(logger: responder.logger)
        // One task executor per event loop, for the routes of the loop's connections.
        var executors: [ObjectIdentifier: EventLoopTaskExecutor] = [:]
        for loop in group.makeIterator() { executors[ObjectIdentifier(loop)] = EventLoopTaskExecutor(loop) }
        let taskExecutors = executors
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            // NIO accepts only a few connections per turn of the event loop by default; a loop
            // busy with many connections turns slowly, so a burst of new clients would wait
            // long to be accepted.
            .serverChannelOption(.maxMessagesPerRead, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(quiesce.makeServerChannelHandler(channel: channel))
                }
            }
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    switch connections.admit(channel) {
                    case .admitted: break
                    // Over TLS, a refusal is not answered: its 503 would wait for a handshake
                    // that a client which never makes one would hold open.
                    case .refused: return try ConnectionRefusal.install(on: channel, answers: tls == nil)
                    case .dropped: return try ConnectionRefusal.install(on: channel, answers: false)
                    }
                    // A client that closes its sending side after a request still gets the
                    // answer (HttpHandler closes the connection after it).
                    try channel.syncOptions?.setOption(.allowRemoteHalfClosure, value: true)
                    socketOptions.apply(to: channel)
                    let pipeline = channel.pipeline.syncOperations
                    let executor = taskExecutors[ObjectIdentifier(channel.eventLoop)] ?? {
                        assertionFailure("a connection on an event loop outside the server's group")
                        return EventLoopTaskExecutor(channel.eventLoop)
                    }()
                    let streamer = tls.map { _ in FileRegionStreamer(fileIO: fileIO) }
                    let handler = HttpHandler(responder: responder, fileIO: fileIO, taskExecutor: executor, fileStreamer: streamer)
                    // HttpHandler answers pipelined requests in order itself.
                    try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: false)
                    try pipeline.addHandler(WireObserver(handler: handler), position: .first)
                    // No more requests are read while answers wait for a client that does not
                    // read them (NIO's write buffer over its high-water mark).
                    try pipeline.addHandler(BackPressureHandler(), position: .first)
                    try pipeline.addHandler(handler)
                    if let tls, let streamer {
                        // At the socket's end, so that everything above sees the plain bytes.
                        try pipeline.addHandler(streamer, position: .first)
                        try pipeline.addHandler(NIOSSLServerHandler(context: tls.current), position: .first)
                    }
                }
            }
            .bind(host: settings.host, port: settings.port)
            .get()
        return HttpServer(
            channel: channel, quiesce: quiesce, connections: connections, host: settings.host, isTls: tls != nil,
            shutdownTimeout: settings.shutdownTimeout.seconds)
    }

    /// Stops accepting connections, lets the requests in flight finish (up to the shutdown
    /// timeout, or until the calling task is cancelled), and closes every connection. Returns
    /// whether everything finished in time.
    @discardableResult
    func shutdown() async -> Bool {
        let finished = channel.eventLoop.makePromise(of: Void.self)
        quiesce.initiateShutdown(promise: finished)
        let result = await FutureOrDeadline.wait(finished.futureResult, orSeconds: shutdownTimeout)
        if !result {
            // Time is up (or the wait was cancelled): close the connections still busy.
            try? await channel.close()
            connections.closeAll()
        }
        return result
    }
}
