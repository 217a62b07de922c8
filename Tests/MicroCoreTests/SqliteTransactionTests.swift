import Foundation
import MicroCore
import MicroTestSupport
import NIOCore
import NIOPosix
import Testing

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
            // More writes than the shared pool has threads, while the transaction is open: they
            // wait for it, and its next statement still finds a thread to run on (its own), so it
            // ends, and then they go through.
            let writes = 2 * NIOSingletons.blockingPoolThreadCountSuggestion + 2
            let (begun, begunSignal) = AsyncStream<Void>.makeStream()
            let transaction = Task {
                try await database.transaction { sql in
                    try await sql.insert(into: "items").columns("name").values(SQLBind("first")).run()
                    begunSignal.yield()
                    // Long enough for every write to be waiting.
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

    @Test func aCancelledRequestsTransactionIsRolledBackAndLeavesNoLock() async throws {
        try await withItems(busyTimeout: .milliseconds(500)) { database in
            let (begun, begunSignal) = AsyncStream<Void>.makeStream()
            // A request whose client left in the middle of its transaction: Micro cancels it.
            let request = Task {
                try await database.transaction { sql in
                    try await sql.insert(into: "items").columns("name").values(SQLBind("half")).run()
                    begunSignal.yield()
                    try await Task.sleep(for: .seconds(30))
                }
            }
            for await _ in begun { break }
            request.cancel()
            await #expect(throws: CancellationError.self) { try await request.value }
            // Its connection was closed, so its lock is gone: a write goes through at once.
            try await database.sql.insert(into: "items").columns("name").values(SQLBind("next")).run()
            try await database.transaction { sql in
                try await sql.insert(into: "items").columns("name").values(SQLBind("and next")).run()
            }
            #expect(try await count(database) == 2)
        }
    }

    @Test func aStatementSentToTheDatabaseFromInsideATransactionRunsInIt() async throws {
        try await withItems(busyTimeout: .milliseconds(300)) { database in
            try await database.transaction { sql in
                try await sql.insert(into: "items").columns("name").values(SQLBind("inside")).run()
                // Not `sql`: a helper that knows only the database. It neither waits for the
                // transaction (a 503 after the busy timeout) nor misses its row.
                #expect(try await count(database) == 1)
                try await database.sql.insert(into: "items").columns("name").values(SQLBind("helper")).run()
            }
            #expect(try await count(database) == 2)
        }
    }

    @Test func aTaskMadeInsideATransactionThatOutlivesItUsesTheDatabaseAsAnyOther() async throws {
        try await withItems { database in
            let (ended, endedSignal) = AsyncStream<Void>.makeStream()
            // A task made inside the transaction inherits what marks it open; after its end, its
            // statements and transactions are its own, not the ended one's closed connection.
            let late = try await database.transaction { _ in
                Task {
                    for await _ in ended { break }
                    try await database.sql.insert(into: "items").columns("name").values(SQLBind("late")).run()
                    try await database.transaction { sql in
                        try await sql.insert(into: "items").columns("name").values(SQLBind("later")).run()
                    }
                }
            }
            endedSignal.yield()
            try await late.value
            #expect(try await count(database) == 2)
        }
    }

    @Test func aReadBesideAnOpenTransactionWaitsForItWithoutAThread() async throws {
        try await withItems { database in
            let (begun, begunSignal) = AsyncStream<Void>.makeStream()
            let (release, releaseSignal) = AsyncStream<Void>.makeStream()
            let transaction = Task {
                try await database.transaction { sql in
                    try await sql.insert(into: "items").columns("name").values(SQLBind("committed")).run()
                    begunSignal.yield()
                    for await _ in release { break }
                }
            }
            for await _ in begun { break }
            // More reads than the shared pool has threads, while a write waits too: none holds a
            // thread while it waits, so the transaction's end lets every one through.
            let reads = 2 * NIOSingletons.blockingPoolThreadCountSuggestion + 2
            let waiting = Task {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    group.addTask {
                        try await database.sql.insert(into: "items").columns("name").values(SQLBind("beside")).run()
                        return -1
                    }
                    for _ in 0..<reads { group.addTask { try await count(database) } }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
            }
            try await Task.sleep(for: .milliseconds(100))
            // The shared pool, which serves others too (static files), still has its threads.
            let poolAnswered = try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask { try await NIOThreadPool.singleton.runIfActive { true } }
                group.addTask {
                    try await Task.sleep(for: .seconds(1))
                    return false
                }
                let first = try await group.next() ?? false
                group.cancelAll()
                return first
            }
            #expect(poolAnswered)
            releaseSignal.yield()
            try await transaction.value
            let counts = try await waiting.value.filter { $0 >= 0 }
            // Each read came after the commit: none saw the table without its row.
            #expect(counts.count == reads)
            #expect(counts.allSatisfy { $0 >= 1 })
            #expect(try await count(database) == 2)
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
