import Dispatch

/// Runs asynchronous work to its end for a caller that must wait for it: a synchronous API
/// (a user store's look-up by name) over an asynchronous driver. The work runs on Dispatch's
/// threads, never on the caller's pool, so that callers waiting on every thread of Swift's
/// cooperative pool cannot keep it from finishing.
public enum Blocking {
    /// The value `work` returns, or the error it throws, once it has finished.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let result = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: DispatchTaskExecutor.shared) {
            do {
                let value = try await work()
                result.withLock { $0 = .success(value) }
            } catch {
                result.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0 }!.get()
    }
}
