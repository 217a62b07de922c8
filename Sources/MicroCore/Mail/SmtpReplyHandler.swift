import NIOCore

/// The last handler of a connection to a mail server: parses what arrives into replies, keeps
/// them until they are asked for, and hands each to the one waiting for it, or the reason there
/// is none (the server closed the connection, TLS failed, the time ran out). It lives on the
/// channel's event loop, and so does everything it keeps.
final class SmtpReplyHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    /// Replies no command asked for yet: the client sends one command at a time, so a server
    /// that sends more than this is not answering it.
    static let unreadLimit = 8

    private var parser = SmtpReplyParser()
    private var replies: [SmtpReply] = []
    private var failure: SmtpFailure?
    private var waiter: (promise: EventLoopPromise<SmtpReply>, timer: Scheduled<Void>)?
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard failure == nil else { return }
        let buffer = unwrapInboundIn(data)
        let (parsed, failure) = parser.parse(buffer.readableBytesView)
        replies += parsed
        if let failure {
            fail(failure)
        } else if replies.count > Self.unreadLimit {
            fail(SmtpFailure("the server sent replies to commands not given"))
        }
        deliver()
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(SmtpFailure("the server closed the connection"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(SmtpFailure(describing: error))
    }

    /// Whether bytes of the server's are here that no one asked for yet: after the server's
    /// yes to `STARTTLS`, such bytes were sent before TLS and must not be read as if after it.
    var hasUnreadBytes: Bool { !replies.isEmpty || !parser.isEmpty }

    /// The next reply, on `loop` (the channel's); when none comes within `timeout`, fails with
    /// `timeoutFailure` and closes the connection. One waits at a time.
    func nextReply(on loop: any EventLoop, within timeout: TimeAmount, orFail timeoutFailure: SmtpFailure) -> EventLoopFuture<SmtpReply> {
        if waiter != nil { return loop.makeFailedFuture(SmtpFailure("a second reply was awaited at once")) }
        let promise = loop.makePromise(of: SmtpReply.self)
        let timer = loop.assumeIsolated().scheduleTask(in: timeout) { self.fail(timeoutFailure) }
        waiter = (promise, timer)
        deliver()
        return promise.futureResult
    }

    /// Ends the conversation with `failure` (the first failure is the one kept) and closes the
    /// connection; a reply already here is still handed out first.
    func fail(_ failure: SmtpFailure) {
        if self.failure == nil {
            self.failure = failure
            context?.close(promise: nil)
        }
        deliver()
    }

    private func deliver() {
        guard let (promise, timer) = waiter else { return }
        if !replies.isEmpty {
            waiter = nil
            timer.cancel()
            promise.succeed(replies.removeFirst())
        } else if let failure {
            waiter = nil
            timer.cancel()
            promise.fail(failure)
        }
    }
}
