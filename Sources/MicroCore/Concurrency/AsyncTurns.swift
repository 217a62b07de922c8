/// One holder at a time, for async work: a task waits its turn without holding a thread, in the
/// order it came, for a bounded time.
///
/// What waits here must not wait on a thread instead: a SQLite transaction's statements run on
/// a thread, and transactions waiting for its lock on threads of their own would leave it none.
public final class AsyncTurns: Sendable {
    /// A task waiting for its turn. Its continuation is there once the task suspended; what
    /// happened to it before that (its turn came, its wait ended) waits in `early`.
    private struct Waiter {
        let id: UInt64
        var continuation: CheckedContinuation<Void, any Error>?
    }

    private struct State {
        var held = false
        var queue: [Waiter] = []
        var early: [UInt64: Result<Void, any Error>] = [:]
        var lastId: UInt64 = 0
    }

    private let state = Locked(State())

    /// Turns nobody holds yet.
    public init() {}

    /// How many tasks wait for their turn now.
    public var waiting: Int { state.withLock { $0.queue.count } }

    /// Runs `work` in this task's turn, then hands the turn to the next task. Throws `timedOut`
    /// when the turn did not come within `limit`, and `CancellationError` when the task was
    /// cancelled before or while it waited; either way `work` did not run.
    public func withTurn<R>(waitingAtMost limit: Duration, timedOut: @autoclosure () -> any Error, _ work: () async throws -> R) async throws -> R {
        try await take(waitingAtMost: limit, timedOut: timedOut())
        let result: R
        do {
            result = try await work()
        } catch {
            handOn()
            throw error
        }
        handOn()
        return result
    }

    private func take(waitingAtMost limit: Duration, timedOut: any Error) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state -> UInt64? in
            if !state.held {
                state.held = true
                return nil
            }
            state.lastId += 1
            state.queue.append(Waiter(id: state.lastId, continuation: nil))
            return state.lastId
        }
        guard let id else { return }
        let timer = Task { [self] in
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            end(id, with: timedOut)
        }
        defer { timer.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let decided = state.withLock { state -> Result<Void, any Error>? in
                    if let outcome = state.early.removeValue(forKey: id) { return outcome }
                    if let index = state.queue.firstIndex(where: { $0.id == id }) { state.queue[index].continuation = continuation }
                    return nil
                }
                if let decided { continuation.resume(with: decided) }
            }
        } onCancel: {
            end(id, with: CancellationError())
        }
    }

    /// Ends the wait of `id`, if it still waits: it leaves the queue and is told `error`.
    private func end(_ id: UInt64, with error: any Error) {
        let waiting = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard let index = state.queue.firstIndex(where: { $0.id == id }) else { return nil }
            let waiter = state.queue.remove(at: index)
            if waiter.continuation == nil { state.early[id] = .failure(error) }
            return waiter.continuation
        }
        waiting?.resume(throwing: error)
    }

    /// Gives the turn to the first waiting task, or frees it.
    private func handOn() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard !state.queue.isEmpty else {
                state.held = false
                return nil
            }
            let waiter = state.queue.removeFirst()
            if waiter.continuation == nil { state.early[waiter.id] = .success(()) }
            return waiter.continuation
        }
        next?.resume()
    }
}
