import Dispatch

/// Runs tasks' jobs on a serial queue of its own, apart from Swift's cooperative pool and from
/// Dispatch's global queues: the work ``Blocking`` waits for always gets a thread, however many
/// threads of those pools wait for it. The jobs never block (the work awaits its driver), so
/// one queue serves every waiter.
final class DispatchTaskExecutor: TaskExecutor {
    static let shared = DispatchTaskExecutor()
    /// A serial queue is overcommitting: Dispatch gives it a thread even when every thread of
    /// the global queues is blocked.
    private let queue = DispatchQueue(label: "micro.blocking")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
