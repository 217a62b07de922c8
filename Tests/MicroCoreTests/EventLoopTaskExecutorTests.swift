import Dispatch
@testable import MicroCore
import MicroTesting
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing


/// The event loop as a task executor: the jobs it queues on the loop's thread run in turns of
/// the loop, those from other threads reach it too, and every one runs on the loop.
@Suite(.timeLimit(.minutes(1))) struct EventLoopTaskExecutorTests {
    /// Runs `body` in a task that prefers a one-thread loop's executor, then shuts the loop down.
    /// A lost job would leave the task waiting for ever, and awaiting it cannot be cancelled:
    /// after 30 s the test fails instead of hanging.
    private static func onLoop<T: Sendable>(_ body: @escaping @Sendable (any EventLoop) async -> T) async throws -> T {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let task = Task(executorPreference: EventLoopTaskExecutor(loop)) { await body(loop) }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let resumed = NIOLockedValueBox(false)
            @Sendable func finish(_ value: T?) {
                let first = resumed.withLockedValue { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: value) }
            }
            Task { finish(await task.value) }
            Task {
                try? await Task.sleep(for: .seconds(30))
                finish(nil)
            }
        }
        try await group.shutdownGracefully()
        return try #require(result, "the task did not finish in 30 s: a job was lost")
    }

    @Test func tasksThatYieldToEachOtherRunOnTheLoopToTheirEnd() async throws {
        // Each yield queues the task's next job while the loop runs the queued ones: it runs in
        // the next batch, and neither task's jobs are lost.
        let (onLoop, turns) = try await Self.onLoop { loop in
            await withTaskGroup(of: (Bool, Int).self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        var onLoop = loop.inEventLoop
                        var turns = 0
                        for _ in 0..<1000 {
                            await Task.yield()
                            onLoop = onLoop && loop.inEventLoop
                            turns += 1
                        }
                        return (onLoop, turns)
                    }
                }
                var all = (true, 0)
                for await (onLoop, turns) in group { all = (all.0 && onLoop, all.1 + turns) }
                return all
            }
        }
        #expect(onLoop)
        #expect(turns == 2000)
    }

    @Test func jobsResumedFromAnotherThreadRunOnTheLoop() async throws {
        // A continuation resumed by another thread enqueues from there; child tasks started on
        // the loop enqueue from the loop. Both kinds, mixed, run on the loop.
        let (onLoop, finished) = try await Self.onLoop { loop in
            await withTaskGroup(of: Bool.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        if index.isMultiple(of: 2) {
                            await withCheckedContinuation { continuation in
                                DispatchQueue.global().async { continuation.resume() }
                            }
                        } else {
                            await Task.yield()
                        }
                        return loop.inEventLoop
                    }
                }
                var onLoop = loop.inEventLoop
                var finished = 0
                for await childOnLoop in group {
                    onLoop = onLoop && childOnLoop && loop.inEventLoop
                    finished += 1
                }
                return (onLoop, finished)
            }
        }
        #expect(onLoop)
        #expect(finished == 200)
    }
}
