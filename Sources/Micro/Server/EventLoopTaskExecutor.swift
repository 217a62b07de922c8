import NIOCore

/// A SwiftNIO event loop as a Swift task executor: a task that prefers it runs its nonisolated
/// code, its child tasks and the methods of default actors it calls on that loop's thread
/// (SE-0417).
///
/// NIO's event loops are serial executors (for actors) but not task executors, so each job is
/// handed to the loop in a closure (`execute`), which runs it with this executor as the task's.
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
