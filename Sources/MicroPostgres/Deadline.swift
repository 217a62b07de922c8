#if Postgres
import NIOConcurrencyHelpers

/// The work did not finish in time.
struct DeadlineExceeded: Error, CustomStringConvertible {
    let what: String
    let limit: Duration
    var description: String { "\(what) took longer than \(limit)" }
}

/// Runs `work` and gives up after `limit`: the caller gets ``DeadlineExceeded`` then, while the
/// work, cancelled, ends in its own time. A task group would wait for a query that hangs; this
/// does not.
func withDeadline<T: Sendable>(_ limit: Duration, _ what: String, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
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
                guard (try? await Task.sleep(for: limit)) != nil else { return }
                if finish(.failure(DeadlineExceeded(what: what, limit: limit))) { worker.withLockedValue { $0?.cancel() } }
            }
        }
    }
}
#endif
