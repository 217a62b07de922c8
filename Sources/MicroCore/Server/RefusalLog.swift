import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

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
