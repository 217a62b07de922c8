import NIOCore

/// A SwiftNIO event loop as a Swift task executor: a task that prefers it runs its nonisolated
/// code, its child tasks and the methods of default actors it calls on that loop's thread
/// (SE-0417). The server makes one per event loop, shared by the loop's connections.
///
/// NIO's event loops are serial executors (for actors) but not task executors, so jobs reach
/// the loop in closures (`execute`). The jobs enqueued on the loop's own thread (a route
/// resuming after its password check, say) wait in a queue that one closure runs, in order, in
/// the loop's turn for tasks: one closure per batch rather than one allocation per job
/// (bench/README.md compares the two).
///
/// The loop must be a real one (a `MultiThreadedEventLoopGroup`'s): the queue's safety rests on
/// `inEventLoop` telling the loop's thread from the others, which an `EmbeddedEventLoop` does not.
final class EventLoopTaskExecutor: TaskExecutor, @unchecked Sendable {
    private let eventLoop: any EventLoop
    // Both queues and the flag are touched on the event loop's thread only (`enqueue` checks
    // `inEventLoop`; `runQueued` runs there): that confinement is what makes the class Sendable.
    /// The jobs waiting for the next `runQueued`.
    private var queued: [UnownedJob] = []
    /// The jobs `runQueued` is running: kept between turns so neither array is reallocated.
    private var running: [UnownedJob] = []
    /// A `runQueued` is scheduled on the loop.
    private var runScheduled = false

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        guard eventLoop.inEventLoop else {
            // From another thread (a task resumed by a thread pool's work): the loop takes it
            // in a closure of its own, through its thread-safe queue.
            return eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
        queued.append(job)
        if !runScheduled {
            runScheduled = true
            eventLoop.execute { self.runQueued() }
        }
    }

    /// Runs the jobs queued so far, in order. Jobs they enqueue wait for the next call, which
    /// they schedule. (NIO runs the closures scheduled during its turn for tasks in that same
    /// turn, so a task that keeps yielding keeps the loop from its I/O, as it did with one
    /// closure per job.)
    private func runQueued() {
        // Empty unless it ran inside itself, which would run the outer call's jobs twice.
        assert(running.isEmpty, "runQueued ran inside itself")
        runScheduled = false
        swap(&queued, &running)
        for job in running {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
        running.removeAll(keepingCapacity: true)
    }
}
