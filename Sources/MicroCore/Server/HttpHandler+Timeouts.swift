import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

// The connection's timeouts: one deadline at a time (idle, header, body), and the client's
// progress while an answer is sent.

extension HttpHandler {
    /// Arms the timer of `kind`, counting from `start`. Cheap: it sets a deadline, which a
    /// check running a few times per timeout reads; nothing is scheduled or cancelled per
    /// request.
    func startTimer(_ kind: Timer, since start: NIODeadline = .now(), context: ChannelHandlerContext) {
        let seconds: Double?
        switch kind {
        case .none:
            timer = .none
            return
        case .idle: seconds = settings.connectionIdleTimeout.seconds
        case .header: seconds = settings.headerTimeout.seconds
        case .body: seconds = settings.bodyTimeout.seconds
        case .sending: seconds = nil  // ends when the answer is sent; `send` times the client
        }
        timer = kind
        deadline = seconds.map { start + Self.amount($0) } ?? .distantFuture
        scheduleCheck(context: context)
    }

    func cancelTimer() {
        timer = .none
    }

    /// How often the deadline is checked: a quarter of the shortest timeout, so a timeout
    /// fires at most 25% late. (A keep-alive connection's idle time starts at the first check
    /// that finds its last answer sent, so it may close up to twice that late.)
    var checkInterval: TimeAmount {
        let shortest = min(settings.connectionIdleTimeout, settings.headerTimeout, settings.bodyTimeout, settings.sendTimeout).seconds
        return .nanoseconds(Int64(max(0.01, shortest / 4) * 1e9))
    }

    /// Schedules the next check, unless one is pending: a second would not be cancelled when
    /// the connection closes (only `timeout` is), and would keep the handler until it ran.
    func scheduleCheck(context: ChannelHandlerContext) {
        guard isActive, timeout == nil else { return }
        timeout = context.eventLoop.assumeIsolated().scheduleTask(in: checkInterval) {
            self.timeout = nil
            self.checkDeadline(context: context)
        }
    }

    func checkDeadline(context: ChannelHandlerContext) {
        if var send {
            let unsent = unsentBytes(context: context)
            if unsent == 0 {
                self.send = nil
                // All sent: a keep-alive connection now waits for its next request; a closing
                // one is being closed (``LingeringClose``).
                if timer == .sending {
                    if case .idle = state { startTimer(.idle, context: context) } else { cancelTimer() }
                }
            } else {
                // The client read some since the last check: it gets the full time again.
                if let last = send.unsent, unsent < last { send.deadline = .now() + Self.amount(settings.sendTimeout.seconds) }
                send.unsent = unsent
                self.send = send
                if NIODeadline.now() >= send.deadline { return stalled(context: context) }
            }
        }
        if timer != .none, NIODeadline.now() >= deadline { return timedOut(timer, context: context) }
        if timer != .none || send != nil { scheduleCheck(context: context) }
    }

    /// The bytes of answers not yet taken by the kernel: what NIO holds, files included, and
    /// what the TLS file streamer holds back.
    func unsentBytes(context: ChannelHandlerContext) -> Int {
        let buffered = (try? context.channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) ?? 0
        return buffered + (fileStreamer?.heldBytes ?? 0)
    }

    /// The client stopped reading its answers: nothing more can reach it.
    func stalled(context: ChannelHandlerContext) {
        timer = .none
        send = nil
        if settings.accessLog { logger.info("closed: the client read nothing of its answer for \(settings.sendTimeout)") }
        context.close(promise: nil)
    }

    static func amount(_ seconds: Double) -> TimeAmount {
        .nanoseconds(Int64(seconds * 1e9))
    }

    func timedOut(_ kind: Timer, context: ChannelHandlerContext) {
        timer = .none
        switch kind {
        case .idle, .none, .sending:
            // (`sending` has no deadline of its own: a stalled client is `stalled(context:)`.)
            context.close(promise: nil)
        case .header, .body:
            refuse(.requestTimeout, "The request took too long to arrive.", version: .http1_1, context: context)
        }
    }
}
