import Foundation
import Micro
import MicroPostgres
import Testing

extension MicroPostgresTests {
    /// The pool of a database that answers, every connection busy: a transaction or a statement
    /// waits for one for a while, not for ever, and that is no outage.
    @Suite(.enabled(if: PostgresTestDatabase.available, PostgresTestDatabase.skipNote)) struct Pool {
        @Test(.timeLimit(.minutes(1))) func whatGetsNoConnectionInTimeIsA503AndNoOutage() async throws {
            try await PostgresTestDatabase.withShared(1) { shared in
                let database = shared[0].database
                // Every connection of the pool (ten) held by an open transaction. A holder that
                // fails says so too, so that the count below ends.
                let (begun, begunSignal) = AsyncStream<Void>.makeStream()
                let streams = (0..<10).map { _ in AsyncStream<Void>.makeStream() }
                let releases = streams.map(\.continuation)
                let releaseAll: @Sendable () -> Void = { for release in releases { release.yield() } }
                // Should a wait never end, the holders end after a while: the test fails, not hangs.
                let safety = Task {
                    try await Task.sleep(for: .seconds(20))
                    releaseAll()
                }
                defer { safety.cancel() }
                let holders = streams.map { release, _ in
                    Task {
                        do {
                            try await database.transaction { sql in
                                try await sql.raw("SELECT 1").run()
                                begunSignal.yield()
                                for await _ in release { break }
                            }
                        } catch {
                            Issue.record("a transaction holding a connection failed: \(error)")
                            begunSignal.yield()
                        }
                    }
                }
                var holding = 0
                for await _ in begun {
                    holding += 1
                    if holding == 10 { break }
                }

                let started = ContinuousClock.now
                do {
                    try await database.transaction { sql in try await sql.raw("SELECT 1").run() }
                    Issue.record("a transaction ran with every connection of the pool held")
                } catch let error as HttpError {
                    #expect(error.status == .serviceUnavailable)
                    #expect(error.message.contains("busy"), "\(error)")
                    #expect(error.headers.first(name: "Retry-After") != nil)
                }
                let waited = ContinuousClock.now - started
                // The query timeout (2 s in the tests), with room for a slow machine.
                #expect(waited >= .seconds(2) && waited < .seconds(10), "\(waited)")
                // So is a statement, which waits for a connection as a transaction does.
                let statementStarted = ContinuousClock.now
                do {
                    try await database.sql.raw("SELECT 1").run()
                    Issue.record("a statement ran with every connection of the pool held")
                } catch let error as HttpError {
                    #expect(error.status == .serviceUnavailable)
                    #expect(error.message.contains("busy"), "\(error)")
                }
                #expect(ContinuousClock.now - statementStarted >= .seconds(2))
                // A request that leaves (its client went) while it waits stops waiting.
                let leaving = Task { try await database.transaction { sql in try await sql.raw("SELECT 1").run() } }
                try await Task.sleep(for: .milliseconds(200))
                let cancelled = ContinuousClock.now
                leaving.cancel()
                await #expect(throws: CancellationError.self) { try await leaving.value }
                #expect(ContinuousClock.now - cancelled < .seconds(1))
                // A statement whose connection comes late in its wait has the whole time limit
                // from then: one limit over both would end it, and blame the server.
                let late = Task { try await database.sql.raw("SELECT pg_sleep(1.2)").run() }
                try await Task.sleep(for: .milliseconds(1200))
                releases[0].yield()
                try await late.value
                // None of these is an outage: nothing else answers 503 for them.
                #expect(shared[0].isReachable)

                releaseAll()
                for holder in holders { await holder.value }
                #expect(try await database.transaction { sql in try await sql.raw("SELECT 2 AS two").first(decoding: Two.self) }?.two == 2)
                #expect(try await database.sql.raw("SELECT 2 AS two").first(decoding: Two.self)?.two == 2)
            }
        }

        private struct Two: Decodable { let two: Int }
    }
}
