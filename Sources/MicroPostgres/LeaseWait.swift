#if Postgres
/// Where a wait for a connection of the pool is, when a time limit races it: whichever changes
/// it first wins, under the one lock that holds it.
enum LeaseWait: Equatable {
    case waiting
    /// The connection came, at that moment.
    case lent(at: ContinuousClock.Instant)
    /// The time ran out first: a connection that comes now goes back unused.
    case gaveUp
    /// The pool failed the wait.
    case failed

    /// The connection came: true unless the wait ended otherwise.
    mutating func take() -> Bool {
        guard self == .waiting else { return false }
        self = .lent(at: .now)
        return true
    }

    /// The time is up: true unless the wait ended otherwise.
    mutating func giveUp() -> Bool {
        guard self == .waiting else { return false }
        self = .gaveUp
        return true
    }

    /// The pool failed the wait: true unless the wait ended otherwise.
    mutating func fail() -> Bool {
        guard self == .waiting else { return false }
        self = .failed
        return true
    }
}
#endif
