/// Account events in this process, newest last: at most `limit` of them, none older than
/// ``ActivityLogLimits/retention`` before the newest. Lost at restart.
public final class MemoryActivityLog: ActivityLog {
    private let events = Locked<[ActivityEvent]>([])
    private let limit: Int

    /// An empty log keeping at most `limit` events.
    public init(limit: Int = 10_000) {
        self.limit = limit
    }

    public func record(_ event: ActivityEvent) async throws {
        // Dated by the event, which the app's clock dated: no second clock to disagree with it.
        let oldest = event.at - ActivityLogLimits.retention
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
