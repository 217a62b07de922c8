/// Account events in this process, newest last: at most `limit` of them, none older than
/// ``ActivityLogLimits/retention``. Lost at restart.
public final class MemoryActivityLog: ActivityLog {
    private let events = Locked<[ActivityEvent]>([])
    private let limit: Int
    private let clock: @Sendable () -> Int64

    /// An empty log keeping at most `limit` events; `clock` (seconds since 1970) dates the
    /// retention.
    public init(limit: Int = 10_000, clock: @escaping @Sendable () -> Int64) {
        self.limit = limit
        self.clock = clock
    }

    public func record(_ event: ActivityEvent) async throws {
        let oldest = clock() - ActivityLogLimits.retention
        events.withLock { events in
            events.append(event)
            let expired = events.prefix { $0.at < oldest }.count
            let over = max(0, events.count - expired - limit)
            if expired + over > 0 { events.removeFirst(expired + over) }
        }
    }

    public func events(of username: String?, offset: Int, limit: Int) async throws -> [ActivityEvent] {
        events.withLock { events in
            var found: [ActivityEvent] = []
            var skipped = 0
            for event in events.reversed() where found.count < limit {
                if let username, event.username != username { continue }
                if skipped < offset {
                    skipped += 1
                    continue
                }
                found.append(event)
            }
            return found
        }
    }
}
