import Foundation
import Micro
import MicroOpenIdConnect
import MicroTestSupport
import Testing

extension MicroPostgresTests {
    /// The sessions single sign-on began, in a database, against SQLite and (with a test
    /// server) PostgreSQL: a back-channel logout on one instance finds a session begun on
    /// another, takes it once however logouts race, and a logout token acts once.
    @Suite struct ProviderSessions {
        private let issuer = "https://login.example.com"
        private let now: Int64 = 1_800_000_000

        private func session(_ id: String, sid: String?, subject: String = "sub-ann", expires: Int64? = nil) -> ProviderSession {
            ProviderSession(
                identity: ExternalIdentity(issuer: issuer, subject: subject), providerSessionId: sid, username: "ann", sessionId: id,
                listedId: "listed-\(id)", expiresAt: expires ?? now + 3600)
        }

        @Test(arguments: TestDatabaseKind.available)
        func aSessionIsFoundBySidOrSubOnAnotherInstanceAndTakenOnce(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 3) { (databases: [Database]) async throws in
                let one = try await DatabaseProviderSessionStore(databases[0])
                try await one.record(session("s-1", sid: "sid-1"), now: now)
                try await one.record(session("s-2", sid: "sid-2"), now: now)
                try await one.record(session("s-3", sid: nil, subject: "sub-bob"), now: now)
                try await one.record(session("s-old", sid: "sid-1", expires: now - 1), now: now)
                let two = try await DatabaseProviderSessionStore(databases[1])
                // Both names must match: ann's sid with bob's sub is nobody's.
                #expect(try await two.take(issuer: issuer, providerSessionId: "sid-1", subject: "sub-bob", now: now).isEmpty)
                // Another issuer's sid of the same name is another session.
                #expect(try await two.take(issuer: "https://other.example", providerSessionId: "sid-1", subject: nil, now: now).isEmpty)
                #expect(try await two.take(issuer: issuer, providerSessionId: "sid-1", subject: nil, now: now).map(\.sessionId) == ["s-1"])
                #expect(try await two.take(issuer: issuer, providerSessionId: "sid-1", subject: nil, now: now).isEmpty)
                // What a restarted instance reads.
                let restarted = try await DatabaseProviderSessionStore(databases[2])
                let ann = try await restarted.take(issuer: issuer, providerSessionId: nil, subject: "sub-ann", now: now)
                #expect(ann == [session("s-2", sid: "sid-2")])
                #expect(try await one.take(issuer: issuer, providerSessionId: nil, subject: "sub-bob", now: now).map(\.username) == ["ann"])
                #expect(try await one.take(issuer: issuer, providerSessionId: nil, subject: nil, now: now).isEmpty)
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func racingLogoutsOnTwoInstancesTakeEachSessionOnce(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 2) { (databases: [Database]) async throws in
                let stores = [try await DatabaseProviderSessionStore(databases[0]), try await DatabaseProviderSessionStore(databases[1])]
                for index in 0..<10 { try await stores[0].record(session("s-\(index)", sid: "sid-\(index % 2)"), now: now) }
                let taken = try await withThrowingTaskGroup(of: [String].self) { group in
                    for index in 0..<8 {
                        let store = stores[index % 2]
                        let issuer = issuer
                        let now = now
                        group.addTask { try await store.take(issuer: issuer, providerSessionId: nil, subject: "sub-ann", now: now).map(\.sessionId) }
                    }
                    return try await group.reduce(into: [String]()) { $0 += $1 }
                }
                #expect(taken.sorted() == (0..<10).map { "s-\($0)" }.sorted())
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func aLogoutTokenIsNotedOnceAcrossInstancesUntilItExpires(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 2) { (databases: [Database]) async throws in
                let stores = [try await DatabaseProviderSessionStore(databases[0]), try await DatabaseProviderSessionStore(databases[1])]
                let firsts = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<8 {
                        let store = stores[index % 2]
                        let issuer = issuer
                        let now = now
                        group.addTask { try await store.noteLogoutToken("jti-1", issuer: issuer, until: now + 120, now: now) }
                    }
                    return try await group.reduce(into: [Bool]()) { $0.append($1) }
                }
                #expect(firsts.filter { $0 }.count == 1)
                // A logout that failed after noting its token forgets it: the retry is heard.
                #expect(try await stores[0].noteLogoutToken("jti-retried", issuer: issuer, until: now + 120, now: now))
                try await stores[1].forgetLogoutToken("jti-retried", issuer: issuer)
                #expect(try await stores[0].noteLogoutToken("jti-retried", issuer: issuer, until: now + 120, now: now))
                // Another issuer's jti of the same name is another token.
                #expect(try await stores[1].noteLogoutToken("jti-1", issuer: "https://other.example", until: now + 120, now: now))
                // Once expired, it is swept by the next note and may be noted again.
                #expect(try await stores[0].noteLogoutToken("jti-2", issuer: issuer, until: now + 500, now: now + 121))
                #expect(try await stores[1].noteLogoutToken("jti-1", issuer: issuer, until: now + 500, now: now + 121))
            }
        }
    }
}
