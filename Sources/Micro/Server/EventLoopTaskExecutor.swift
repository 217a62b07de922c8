import NIOCore

/// A SwiftNIO event loop as a Swift task executor: a task that prefers it runs its jobs,
/// and those of its nonisolated async functions and child tasks, on that loop's thread.
///
/// NIO's event loops are serial executors (for actors) but not task executors, so each job is
/// handed to the loop as a task of its own and run there with this executor as the preference.
final class EventLoopTaskExecutor: TaskExecutor {
    private let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
