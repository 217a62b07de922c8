import MicroAuth
import MicroCore

/// Account events in this process, newest last: at most `limit` of them (and `unknownLimit`
/// failed sign-ins under names that are no user, kept apart), none older than
/// ``ActivityLogLimits/retention`` before the newest. Lost at restart.
public final class MemoryActivityLog: ActivityLog {
    private let named = Locked<[ActivityEvent]>([])
    private let unknown = Locked<[ActivityEvent]>([])
    private let limit: Int
    private let unknownLimit: Int

    /// An empty log keeping at most `limit` events of accounts and `unknownLimit` of the
    /// unknown user.
    public init(limit: Int = 10_000, unknownLimit: Int = 1_000) {
        self.limit = limit
        self.unknownLimit = unknownLimit
    }

    public func record(_ event: ActivityEvent) async throws {
        // Dated by the event, which the app's clock dated: no second clock to disagree with it.
        let oldest = event.at - ActivityLogLimits.retentionSeconds
        let (list, limit) = event.username == ActivityEvent.unknownUser ? (unknown, unknownLimit) : (named, self.limit)
        list.withLock { events in
            events.append(event)
            let expired = events.prefix { $0.at < oldest }.count
            let over = max(0, events.count - expired - limit)
            if expired + over > 0 { events.removeFirst(expired + over) }
        }
    }

    public func events(of username: String?, offset: Int, limit: Int) async throws -> [ActivityEvent] {
        (username == ActivityEvent.unknownUser ? unknown : named).withLock { events in
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

    public func endAccount(of username: String, at: Int64) async throws {
        named.withLock { events in
            for index in events.indices where events[index].username == username && events[index].accountEndedAt == nil {
                events[index].accountEndedAt = at
            }
        }
    }

    public func rename(_ username: String, to newName: String) async throws {
        named.withLock { events in
            for index in events.indices where events[index].username == username && events[index].accountEndedAt == nil {
                events[index].username = newName
            }
        }
    }
}
