import NIOCore

/// How the server closes a connection after its last answer: it shuts its sending side and
/// keeps reading (and dropping) what the client still sends for a moment, then closes.
/// Closing at once with the client's bytes unread would reset the connection, and the client
/// could lose the answer (a 408 to a slow client, a 503 at the connection limit).
enum LingeringClose {
    /// How long the connection stays open for the client to read the answer and close.
    static let time = TimeAmount.seconds(1)

    /// Closes `context`'s connection once `written` (the answer's last write) completes.
    /// Reads that arrive meanwhile are for the caller's handler to drop.
    static func after(_ written: EventLoopFuture<Void>, context: ChannelHandlerContext) {
        written.assumeIsolated().whenComplete { result in
            guard case .success = result else { return context.close(promise: nil) }
            context.close(mode: .output, promise: nil)
            let close = context.eventLoop.assumeIsolated().scheduleTask(in: time) { context.close(promise: nil) }
            // A client that closes first does not leave the connection's handlers held until then.
            context.channel.closeFuture.whenComplete { _ in close.cancel() }
        }
    }
}
