import Synchronization

/// Counts the waits for another connection's lock.
final class LockWaits: Sendable {
    private let count = Atomic<Int>(0)

    /// How many waits began so far.
    var value: Int { count.load(ordering: .relaxed) }

    func add() { count.add(1, ordering: .relaxed) }
}
