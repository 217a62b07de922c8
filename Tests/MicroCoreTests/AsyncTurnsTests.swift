@testable import MicroCore
import MicroTesting
import Testing

/// One task at a time, in the order they came, each waiting a bounded time without a thread.
@Suite struct AsyncTurnsTests {
    private struct TimedOut: Error {}

    /// A list many tasks append to.
    private final class Log: Sendable {
        private let entries = Locked<[Int]>([])
        func append(_ entry: Int) { entries.withLock { $0.append(entry) } }
        var all: [Int] { entries.withLock { $0 } }
    }

    /// A task holding a turn of `turns` until `release` is called, then running `then`; returned
    /// once it holds the turn.
    private func hold(_ turns: AsyncTurns, then: @escaping @Sendable () throws -> Void = {}) async -> (holder: Task<Void, any Error>, release: @Sendable () -> Void) {
        let (begun, begunSignal) = AsyncStream<Void>.makeStream()
        let (release, releaseSignal) = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await turns.withTurn(waitingAtMost: .seconds(30), timedOut: TimedOut()) {
                begunSignal.yield()
                for await _ in release { break }
                try then()
            }
        }
        for await _ in begun { break }
        return (holder, { releaseSignal.yield() })
    }

    @Test func tasksTakeTurnsOneAtATimeInTheOrderTheyCame() async throws {
        let turns = AsyncTurns()
        let log = Log()
        let (first, release) = await hold(turns) { log.append(0) }
        var waiting: [Task<Void, any Error>] = []
        for index in 1...5 {
            waiting.append(Task {
                try await turns.withTurn(waitingAtMost: .seconds(30), timedOut: TimedOut()) {
                    log.append(-index)
                    // A turn is one task's until its work ends, suspended or not.
                    try await Task.sleep(for: .milliseconds(5))
                    log.append(index)
                }
            })
            // Each is queued before the next comes.
            while turns.waiting < index { try await Task.sleep(for: .milliseconds(1)) }
        }
        release()
        try await first.value
        for task in waiting { try await task.value }
        #expect(log.all == [0, -1, 1, -2, 2, -3, 3, -4, 4, -5, 5])
    }

    @Test func aWaitPastItsLimitThrowsAndTheTurnGoesToTheNext() async throws {
        let turns = AsyncTurns()
        let (holder, release) = await hold(turns)
        let patient = Task { try await turns.withTurn(waitingAtMost: .seconds(30), timedOut: TimedOut()) { "patient" } }
        await #expect(throws: TimedOut.self) {
            try await turns.withTurn(waitingAtMost: .milliseconds(50), timedOut: TimedOut()) { Issue.record("ran without a turn") }
        }
        release()
        try await holder.value
        #expect(try await patient.value == "patient")
        // Free again: a turn is taken at once.
        #expect(try await turns.withTurn(waitingAtMost: .zero, timedOut: TimedOut()) { 1 } == 1)
    }

    @Test func aCancelledWaiterLeavesTheQueueAndAFailedTurnIsHandedOn() async throws {
        let turns = AsyncTurns()
        let (holder, release) = await hold(turns) { throw TimedOut() }
        let cancelled = Task { try await turns.withTurn(waitingAtMost: .seconds(30), timedOut: TimedOut()) { Issue.record("ran when cancelled") } }
        while turns.waiting < 1 { try await Task.sleep(for: .milliseconds(1)) }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        release()
        await #expect(throws: TimedOut.self) { try await holder.value }
        #expect(turns.waiting == 0)
        #expect(try await turns.withTurn(waitingAtMost: .zero, timedOut: TimedOut()) { 2 } == 2)
    }

    @Test func manyTasksAtOnceEachGetOneTurn() async throws {
        let turns = AsyncTurns()
        let inside = Locked(0)
        let log = Log()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    try await turns.withTurn(waitingAtMost: .seconds(60), timedOut: TimedOut()) {
                        let now = inside.withLock { count -> Int in count += 1; return count }
                        #expect(now == 1)
                        await Task.yield()
                        inside.withLock { $0 -= 1 }
                        log.append(index)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(log.all.sorted() == Array(0..<200))
    }
}
