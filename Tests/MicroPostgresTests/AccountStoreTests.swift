import Foundation
import Micro
import MicroPostgres
import Testing

extension MicroPostgresTests {
    /// The account pages' stores written once for both databases, each test against SQLite
    /// and (when a test server is configured) PostgreSQL, with two instances sharing one.
    @Suite struct AccountStores {
        private func entry(_ index: Int, user: String = "ann", at time: Int64) -> RegisteredSession {
            RegisteredSession(
                entry: SessionEntry(
                    id: "entry-\(user)-\(index)", username: user, browser: "Firefox 128 on Linux", userAgent: "Mozilla/5.0 'x' \"y\" <z>",
                    address: "192.0.2.\(index % 250)", signedInAt: time, lastSeenAt: time),
                sessionId: "session-\(user)-\(index)", expiresAt: time + 28_800)
        }

        @Test(arguments: TestDatabaseKind.available)
        func sessionsAreListedOnEveryInstanceBoundedAndEndedOnce(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 2) { (databases: [Database]) async throws in
                for database in databases { try await database.migrate(DatabaseSessionRegistry.migrations) }
                let one = DatabaseSessionRegistry(databases[0]), two = DatabaseSessionRegistry(databases[1])
                var dropped: [RegisteredSession] = []
                for index in 0..<101 {
                    dropped += try await (index.isMultiple(of: 2) ? one : two).add(entry(index, at: 1_000 + Int64(index)))
                }
                _ = try await one.add(entry(0, user: "bob", at: 1_000))
                #expect(dropped.map(\.sessionId) == ["session-ann-0"])
                let listed = try await two.sessions(of: "ann", now: 1_200, idle: 600, lifetime: 28_800)
                #expect(listed.count == 100)
                #expect(listed.first?.entry.id == "entry-ann-100")
                #expect(listed.first?.entry.userAgent == "Mozilla/5.0 'x' \"y\" <z>")
                // Last seen: written at most once a minute.
                try await one.touch(id: "entry-ann-100", now: 1_130)
                #expect(try await two.sessions(of: "ann", now: 1_200, idle: 600, lifetime: 28_800).first?.entry.lastSeenAt == 1_100)
                try await one.touch(id: "entry-ann-100", now: 1_200)
                #expect(try await two.sessions(of: "ann", now: 1_200, idle: 600, lifetime: 28_800).first?.entry.lastSeenAt == 1_200)
                // Idle past the timeout: not listed.
                #expect(try await one.sessions(of: "ann", now: 1_800, idle: 600, lifetime: 28_800).map(\.entry.id) == ["entry-ann-100"])
                // Another user's entry cannot be removed under this name; one removal only.
                #expect(try await one.remove(id: "entry-bob-0", of: "ann") == nil)
                #expect(try await two.remove(id: "entry-ann-5", of: "ann")?.sessionId == "session-ann-5")
                #expect(try await one.remove(id: "entry-ann-5", of: "ann") == nil)
                let others = try await one.removeAll(of: "ann", keeping: "entry-ann-7")
                #expect(others.count == 98)
                #expect(try await two.sessions(of: "ann", now: 1_200, idle: 600, lifetime: 28_800).map(\.entry.id) == ["entry-ann-7"])
                #expect(try await two.sessions(of: "bob", now: 1_200, idle: 600, lifetime: 28_800).count == 1)
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func eventsAreSharedNewestFirstPagedAndBounded(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 2) { (databases: [Database]) async throws in
                for database in databases { try await database.migrate(DatabaseActivityLog.migrations) }
                let one = DatabaseActivityLog(databases[0], rowLimit: 50), two = DatabaseActivityLog(databases[1], rowLimit: 50)
                for index in 0..<30 {
                    let event = ActivityEvent(
                        username: index.isMultiple(of: 3) ? "bob" : "ann", event: "signed_in", at: 10_000 + Int64(index), address: "192.0.2.1",
                        browser: "curl 8.5", detail: "n\(index) <b>'\"")
                    try await (index.isMultiple(of: 2) ? one : two).record(event)
                }
                let ann = try await one.events(of: "ann", offset: 0, limit: 100)
                #expect(ann.count == 20)
                #expect(ann.first?.detail == "n29 <b>'\"")
                let page = try await two.events(of: nil, offset: 10, limit: 10)
                #expect(page.map(\.detail) == (10..<20).reversed().map { "n\($0) <b>'\"" })
                // Past the row limit the oldest go, when the log prunes (every so often).
                for index in 30..<600 {
                    try await one.record(ActivityEvent(username: "ann", event: "x", at: 10_000 + Int64(index), address: "", browser: "", detail: ""))
                }
                #expect(try await two.events(of: nil, offset: 0, limit: 10_000).count <= 50 + 500)
                // Older than the retention: pruned too.
                try await one.record(ActivityEvent(username: "ann", event: "late", at: 10_000 + ActivityLogLimits.retentionSeconds + 10_000, address: "", browser: "", detail: ""))
                for index in 0..<500 {
                    try await one.record(ActivityEvent(username: "ann", event: "y", at: 10_000 + ActivityLogLimits.retentionSeconds + 10_001 + Int64(index), address: "", browser: "", detail: ""))
                }
                #expect(try await two.events(of: nil, offset: 0, limit: 10_000).allSatisfy { $0.event != "signed_in" })
            }
        }
    }
}
