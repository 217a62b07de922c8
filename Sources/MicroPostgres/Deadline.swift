#if Postgres
import NIOConcurrencyHelpers

/// The work did not finish in time.
struct DeadlineExceeded: Error, CustomStringConvertible {
    let what: String
    let limit: Duration
    var description: String { "\(what) took longer than \(limit)" }
}

/// Runs `work` and gives up after `limit`: the caller gets ``DeadlineExceeded`` then, while the
/// work, cancelled, ends in its own time.
func withDeadline<T: Sendable>(_ limit: Duration, _ what: String, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
    try await firstToEnd(work) {
        guard (try? await Task.sleep(for: limit)) != nil else { return nil }
        return DeadlineExceeded(what: what, limit: limit)
    }
}

/// Runs `work` and `timeout` each in a task of its own, and answers with the first to end: the
/// work's result, or the error `timeout` returns (nil when it was cancelled, the work done). The
/// other is cancelled and ends in its own time. A task group would wait for a query that hangs;
/// this does not.
func firstToEnd<T: Sendable>(
    _ work: @escaping @Sendable () async throws -> T, orTimeout timeout: @escaping @Sendable () async -> (any Error)?
) async throws -> T {
    let resumed = NIOLockedValueBox(false)
    let worker = NIOLockedValueBox<Task<Void, Never>?>(nil)
    let timer = NIOLockedValueBox<Task<Void, Never>?>(nil)
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        @Sendable func finish(_ result: Result<T, any Error>) -> Bool {
            let first = resumed.withLockedValue { done in
                defer { done = true }
                return !done
            }
            if first { continuation.resume(with: result) }
            return first
        }
        worker.withLockedValue { task in
            task = Task {
                let result: Result<T, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                if finish(result) { timer.withLockedValue { $0?.cancel() } }
            }
        }
        timer.withLockedValue { task in
            task = Task {
                guard let error = await timeout() else { return }
                if finish(.failure(error)) { worker.withLockedValue { $0?.cancel() } }
            }
        }
        // The work may have ended before the timer was there to be cancelled.
        if resumed.withLockedValue({ $0 }) { timer.withLockedValue { $0?.cancel() } }
    }
}
#endif
