#if Postgres
import NIOConcurrencyHelpers
import PostgresNIO

/// No connection of the pool came free in time.
struct NoConnectionInTime: Error {}

/// Runs `work` on a connection of `client`'s pool, with two limits of `limit` each: the wait for
/// the connection (then ``NoConnectionInTime``), and the work from the moment it has one (then
/// ``DeadlineExceeded``). One limit over both would blame the server for a wait behind other
/// work, or give a statement that waited long only what is left.
///
/// As with ``withDeadline(_:_:_:)``, the caller gets the error at the limit while the work,
/// cancelled, ends in its own time, holding its connection till then: a statement the server
/// never answers does not hold the caller.
func withLeasedConnection<T: Sendable>(
    _ client: PostgresClient, limit: Duration, _ what: String, _ work: @escaping @Sendable (PostgresConnection) async throws -> T
) async throws -> T {
    let resumed = NIOLockedValueBox(false)
    let lease = NIOLockedValueBox(LeaseWait.waiting)
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
                do {
                    result = .success(try await client.withConnection { connection in
                        guard lease.withLockedValue({ $0.take() }) else { throw CancellationError() }
                        return try await work(connection)
                    })
                } catch {
                    result = .failure(error)
                }
                if finish(result) { timer.withLockedValue { $0?.cancel() } }
            }
        }
        timer.withLockedValue { task in
            task = Task {
                guard (try? await Task.sleep(for: limit)) != nil else { return }
                let state = lease.withLockedValue { state in
                    _ = state.giveUp()
                    return state
                }
                let failure: any Error
                switch state {
                case .gaveUp:
                    failure = NoConnectionInTime()
                case .lent(let at):
                    guard (try? await Task.sleep(until: at + limit, clock: .continuous)) != nil else { return }
                    failure = DeadlineExceeded(what: what, limit: limit)
                case .waiting, .failed:
                    return
                }
                if finish(.failure(failure)) { worker.withLockedValue { $0?.cancel() } }
            }
        }
    }
}
#endif
