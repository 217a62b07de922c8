import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// The open connections: admitted up to `settings.maxConnections`, and closed all at once
/// when a shutdown runs out of time. When the last one closes and the server stays without
/// one for a while, the allocator's free memory goes back to the system (``IdleMemoryRelease``).
final class Connections: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        /// Refused connections still being answered (see ``ConnectionRefusal``).
        var refusing = 0
        var refusalLog = RefusalLog()
        var memory = IdleMemoryRelease()
    }

    /// The most connections served at once.
    let limit: Int
    /// Refused connections answered at once at most; past them a refused connection is
    /// closed without an answer, so a flood cannot hold more descriptors than this.
    static let answeredRefusalsLimit = 64
    private let state = NIOLockedValueBox(State())
    private let logger: Logger
    private let quietPeriod: TimeAmount
    private let releaseMemory: @Sendable () -> Void

    /// `quietPeriod` and `releaseMemory` are for tests; a server uses ``IdleMemoryRelease``'s.
    init(
        limit: Int, logger: Logger, quietPeriod: TimeAmount = IdleMemoryRelease.quietPeriod,
        releaseMemory: @escaping @Sendable () -> Void = IdleMemoryRelease.releaseInBackground
    ) {
        self.limit = limit
        self.logger = logger
        self.quietPeriod = quietPeriod
        self.releaseMemory = releaseMemory
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
                state.memory.connectionAdmitted()
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
                let lastClosed = self.state.withLockedValue { state in
                    state.channels.removeValue(forKey: id)
                    return state.channels.isEmpty && state.memory.lastConnectionClosed()
                }
                if lastClosed { self.scheduleMemoryCheck(on: channel.eventLoop) }
            }
        case .refused:
            channel.closeFuture.whenComplete { _ in self.state.withLockedValue { $0.refusing -= 1 } }
        case .dropped:
            break
        }
        if let report { log(report, eventLoop: channel.eventLoop) }
        return admission
    }

    /// The connections open now.
    var open: [any Channel] {
        state.withLockedValue { Array($0.channels.values) }
    }

    /// Closes every open connection.
    func closeAll() {
        for channel in open { channel.close(promise: nil) }
    }

    /// Gives the free memory back once no connection has opened for a quiet period.
    private func scheduleMemoryCheck(on eventLoop: any EventLoop) {
        eventLoop.scheduleTask(in: quietPeriod) {
            let decision = self.state.withLockedValue { state in
                let open = state.channels.count
                return state.memory.check(open: open)
            }
            switch decision {
            case .release: self.releaseMemory()
            case .wait: self.scheduleMemoryCheck(on: eventLoop)
            case .none: break
            }
        }
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
