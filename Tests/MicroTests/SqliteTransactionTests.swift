import Foundation
import NIOCore
import Testing
@testable import Micro

/// Transactions on a SQLite file: on a connection of their own, taking turns, beside the
/// statements of other requests on the shared connection.
@Suite struct SqliteTransactionTests {
    /// A database of an `items` table in a new folder, with a busy timeout of `busyTimeout`.
    private func withItems(busyTimeout: Duration = .seconds(2), _ body: (Database) async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Database.sqlite(path: folder.file("app.db"), busyTimeout: busyTimeout)
        do {
            try await database.sql.create(table: "items").column("name", type: .text, .notNull).run()
            try await body(database)
        } catch {
            await database.shutdown()
            throw error
        }
        await database.shutdown()
    }

    private struct Count: Decodable { let n: Int }

    private func count(_ database: Database) async throws -> Int {
        try await database.sql.select().column(SQLFunction("count", args: SQLLiteral.all), as: "n").from("items")
            .first(decoding: Count.self)?.n ?? -1
    }

    @Test func writesOfOtherRequestsWaitForAnOpenTransactionAndAllEndWell() async throws {
        try await withItems { database in
            // More writes than the shared pool has threads: each waits for the transaction's lock
            // inside SQLite, on one of those threads. The transaction's next statement runs on a
            // thread of its own, so it can finish, and then they can.
            let writes = 2 * NIOSingletons.blockingPoolThreadCountSuggestion + 2
            let (begun, begunSignal) = AsyncStream<Void>.makeStream()
            let transaction = Task {
                try await database.transaction { sql in
                    try await sql.insert(into: "items").columns("name").values(SQLBind("first")).run()
                    begunSignal.yield()
                    // Long enough for the writes to be waiting on every thread of the pool.
                    try await Task.sleep(for: .milliseconds(300))
                    try await sql.insert(into: "items").columns("name").values(SQLBind("second")).run()
                }
            }
            for await _ in begun { break }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<writes {
                    group.addTask { try await database.sql.insert(into: "items").columns("name").values(SQLBind("write \(index)")).run() }
                }
                try await group.waitForAll()
            }
            try await transaction.value
            #expect(try await count(database) == writes + 2)
        }
    }

    @Test func aTransactionThatWaitedPastTheBusyTimeoutIsA503AndRunsNothing() async throws {
        try await withItems(busyTimeout: .milliseconds(200)) { database in
            let (begun, begunSignal) = AsyncStream<Void>.makeStream()
            let (release, releaseSignal) = AsyncStream<Void>.makeStream()
            let holder = Task {
                try await database.transaction { _ in
                    begunSignal.yield()
                    for await _ in release { break }
                }
            }
            for await _ in begun { break }
            let started = ContinuousClock.now
            do {
                try await database.transaction { sql in
                    try await sql.insert(into: "items").columns("name").values(SQLBind("late")).run()
                }
                Issue.record("the second transaction ran while the first held its turn")
            } catch let error as HttpError {
                #expect(error.status == .serviceUnavailable)
                #expect(error.headers.first(name: "Retry-After") == "60")
            }
            #expect(ContinuousClock.now - started < .seconds(2))
            releaseSignal.yield()
            try await holder.value
            #expect(try await count(database) == 0)
            // The turn was handed on: the next transaction runs at once.
            try await database.transaction { sql in
                try await sql.insert(into: "items").columns("name").values(SQLBind("now")).run()
            }
            #expect(try await count(database) == 1)
        }
    }

    @Test func anotherFilePutInThePlaceOfTheDatabaseIsReadAtTheNextStatement() async throws {
        try await withItems { database in
            try await database.sql.insert(into: "items").columns("name").values(SQLBind("old")).run()
            #expect(try await count(database) == 1)
            // A restored backup: another database, renamed over the file.
            let restored = database.description + ".restored"
            let other = try await Database.sqlite(path: restored)
            try await other.sql.create(table: "items").column("name", type: .text, .notNull).run()
            for name in ["a", "b", "c"] { try await other.sql.insert(into: "items").columns("name").values(SQLBind(name)).run() }
            await other.shutdown()
            #expect(rename(restored, database.description) == 0)
            #expect(try await count(database) == 3)
        }
    }

    @Test func aTransactionLeftOpenByItsWorkIsRolledBackWhenItsConnectionCloses() async throws {
        try await withItems { database in
            // A session whose work began a transaction and never ended it: its connection is
            // closed at the end, which rolls the transaction back, and frees the lock.
            try await database.sql.withSession { sql in
                try await sql.raw("BEGIN IMMEDIATE").run()
                try await sql.insert(into: "items").columns("name").values(SQLBind("forgotten")).run()
            }
            #expect(try await count(database) == 0)
            try await database.sql.insert(into: "items").columns("name").values(SQLBind("after")).run()
            #expect(try await count(database) == 1)
        }
    }
}
