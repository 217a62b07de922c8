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
