import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// The open connections: admitted up to `settings.maxConnections`, and closed all at once
/// when a shutdown runs out of time.
final class Connections: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        /// Refused connections still being answered (see ``ConnectionRefusal``).
        var refusing = 0
        var refusalLog = RefusalLog()
    }

    /// The most connections served at once.
    let limit: Int
    /// Refused connections answered at once at most; past them a refused connection is
    /// closed without an answer, so a flood cannot hold more descriptors than this.
    static let answeredRefusalsLimit = 64
    private let state = NIOLockedValueBox(State())
    private let logger: Logger

    init(limit: Int, logger: Logger) {
        self.limit = limit
        self.logger = logger
    }

    /// What becomes of a new connection.
    enum Admission {
        /// Served: counted in until it closes.
        case admitted
        /// Over the limit: answered 503 and closed (see ``ConnectionRefusal``).
        case refused
        /// Over the limit during a flood of refusals: closed at once.
        case dropped
    }

    /// Counts `channel` in when there is room; otherwise counts the refusal and logs it
    /// (a few lines however many there are).
    func admit(_ channel: any Channel) -> Admission {
        let id = ObjectIdentifier(channel)
        let now = NIODeadline.now()
        let (admission, report) = state.withLockedValue { state -> (Admission, RefusalLog.Report?) in
            if state.channels.count < limit {
                state.channels[id] = channel
                return (.admitted, nil)
            }
            let report = state.refusalLog.refused(now: now)
            guard state.refusing < Self.answeredRefusalsLimit else { return (.dropped, report) }
            state.refusing += 1
            return (.refused, report)
        }
        switch admission {
        case .admitted:
            channel.closeFuture.whenComplete { _ in
                _ = self.state.withLockedValue { $0.channels.removeValue(forKey: id) }
            }
        case .refused:
            channel.closeFuture.whenComplete { _ in self.state.withLockedValue { $0.refusing -= 1 } }
        case .dropped:
            break
        }
        if let report { log(report, eventLoop: channel.eventLoop) }
        return admission
    }

    /// Closes every open connection.
    func closeAll() {
        for channel in state.withLockedValue({ Array($0.channels.values) }) { channel.close(promise: nil) }
    }

    private func log(_ report: RefusalLog.Report, eventLoop: any EventLoop) {
        switch report {
        case .first(let summaryAt):
            logger.warning("Refused a connection: the limit of \(limit) open connections (settings.maxConnections, MICRO_MAX_CONNECTIONS) is reached. Further refusals are counted and logged every \(RefusalLog.quietSeconds) s.")
            scheduleSummary(at: summaryAt, eventLoop: eventLoop)
        case .summary(let count, let nextAt):
            logger.warning("Refused \(count) more connection\(count == 1 ? "" : "s") in the last \(RefusalLog.quietSeconds) s at the limit of \(limit) open connections (settings.maxConnections).")
            scheduleSummary(at: nextAt, eventLoop: eventLoop)
        }
    }

    private func scheduleSummary(at deadline: NIODeadline, eventLoop: any EventLoop) {
        eventLoop.scheduleTask(deadline: deadline) {
            if let report = self.state.withLockedValue({ $0.refusalLog.summary(now: .now()) }) {
                self.log(report, eventLoop: eventLoop)
            }
        }
    }
}

/// When to log refused connections, so a flood of them makes a few lines rather than one
/// per connection: the first refusal at once, then a count every ``quietSeconds`` while they
/// go on, then nothing until the next one. Pure: the caller gives the time and schedules the
/// summaries it is asked for.
struct RefusalLog: Sendable {
    /// What to log.
    enum Report: Equatable, Sendable {
        /// The first refusal after a quiet spell; ask for ``RefusalLog/summary(now:)`` at the deadline.
        case first(summaryAt: NIODeadline)
        /// `count` refusals since the last line; ask again at `nextAt`.
        case summary(count: Int, nextAt: NIODeadline)
    }

    /// The seconds between two lines.
    static let quietSeconds: Int64 = 10

    /// When the current quiet spell ends; nil when no refusal is being counted.
    private var quietUntil: NIODeadline?
    /// Refusals not logged yet.
    private var unreported = 0

    /// Counts a refusal; returns the line to log now, if any.
    mutating func refused(now: NIODeadline) -> Report? {
        guard quietUntil == nil else {
            unreported += 1
            return nil
        }
        let until = now + .seconds(Self.quietSeconds)
        quietUntil = until
        return .first(summaryAt: until)
    }

    /// At the end of a quiet spell: the count of refusals since the last line (and when to
    /// look again), or nil when there were none and the next refusal is logged at once.
    mutating func summary(now: NIODeadline) -> Report? {
        guard unreported > 0 else {
            quietUntil = nil
            return nil
        }
        let count = unreported
        unreported = 0
        let next = now + .seconds(Self.quietSeconds)
        quietUntil = next
        return .summary(count: count, nextAt: next)
    }
}

/// Answers a connection over the limit: `503 Service Unavailable` with `Connection: close`,
/// then a ``LingeringClose``, whatever the client sends meanwhile dropped.
final class ConnectionRefusal: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = HTTPServerResponsePart

    private var started = false

    /// Whether the refusal is answered; when not, the connection is closed at once.
    private let answers: Bool

    private init(answers: Bool) {
        self.answers = answers
    }

    /// Sets up `channel` to be refused, with an answer or (`answers` false) without; call
    /// on its event loop.
    static func install(on channel: any Channel, answers: Bool) throws {
        let pipeline = channel.pipeline.syncOperations
        if answers { try pipeline.addHandler(HTTPResponseEncoder()) }
        try pipeline.addHandler(ConnectionRefusal(answers: answers))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { refuse(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        refuse(context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // The request is not wanted.
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func refuse(context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        guard answers else {
            context.close(promise: nil)
            return
        }
        var response = Responder.refusal(.serviceUnavailable, "The server is at its connection limit. Please try again in a moment.")
        response.headers.replaceOrAdd(name: "Connection", value: "close")
        response.headers.replaceOrAdd(name: "Retry-After", value: "1")
        response.headers.replaceOrAdd(name: "Date", value: HttpDate.format(Int(NIODeadline.wallClockSeconds)))
        let head = HTTPResponseHead(version: .http1_1, status: .serviceUnavailable, headers: response.headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if case .bytes(let body) = response.body {
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        }
        LingeringClose.after(context.writeAndFlush(wrapOutboundOut(.end(nil))), context: context)
    }
}
