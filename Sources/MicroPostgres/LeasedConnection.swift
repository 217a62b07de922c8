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
/// cancelled, ends in its own time, holding its connection till then.
func withLeasedConnection<T: Sendable>(
    _ client: PostgresClient, limit: Duration, _ what: String, _ work: @escaping @Sendable (PostgresConnection) async throws -> T
) async throws -> T {
    let lease = NIOLockedValueBox(LeaseWait.waiting)
    return try await firstToEnd {
        try await client.withConnection { connection in
            // Given up on a moment ago: the connection goes back unused, and this error may
            // reach the caller before the timer's own.
            guard lease.withLockedValue({ $0.take() }) else { throw NoConnectionInTime() }
            return try await work(connection)
        }
    } orTimeout: {
        guard (try? await Task.sleep(for: limit)) != nil else { return nil }
        let state = lease.withLockedValue { state in
            _ = state.giveUp()
            return state
        }
        switch state {
        case .gaveUp:
            return NoConnectionInTime()
        case .lent(let at):
            guard (try? await Task.sleep(until: at + limit, clock: .continuous)) != nil else { return nil }
            return DeadlineExceeded(what: what, limit: limit)
        case .waiting, .failed:
            return nil
        }
    }
}
#endif
