import MicroCore

/// App events in this process (lost at restart): the newest ``limit`` of them.
public final class MemoryAppEventLog: AppEventLog {
    /// The most events kept.
    public let limit: Int
    private let kept = Locked<[AppEvent]>([])

    /// A log of at most `limit` events, the oldest dropped first.
    public init(limit: Int = 10_000) {
        self.limit = max(1, limit)
    }

    /// Keeps `event`, dropping the oldest beyond ``limit``.
    public func record(_ event: AppEvent) async throws {
        kept.withLock { events in
            events.append(event)
            if events.count > limit + limit / 10 { events.removeFirst(events.count - limit) }
        }
    }

    /// The newest events of `kind` and `subject` when given, newest first.
    public func events(kind: String?, subject: String?, offset: Int, limit: Int) async throws -> [AppEvent] {
        let all = kept.withLock { Array($0.suffix(self.limit)) }
        let matching = all.reversed().filter { (kind == nil || $0.kind == kind) && (subject == nil || $0.subject == subject) }
        return Array(matching.dropFirst(max(0, offset)).prefix(max(0, limit)))
    }
}
