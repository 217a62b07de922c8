import Dispatch

/// Runs tasks' jobs on Dispatch's global threads, apart from Swift's cooperative pool: the
/// work ``Blocking`` waits for.
final class DispatchTaskExecutor: TaskExecutor {
    static let shared = DispatchTaskExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        DispatchQueue.global().async { job.runSynchronously(on: executor) }
    }
}
