import MicroCore

/// bcrypt hashes of a random password, one per cost: what refusals are checked against, so
/// that they cost what a known user's check does.
final class DummyHashes: Sendable {
    private let hashes = Locked<[Int: String]>([:])

    /// The costs made so far.
    var costs: [Int] { hashes.withLock { $0.keys.sorted() } }

    /// The hash of `cost`, made the first time it is asked for (a bcrypt hash: call it off the
    /// event loops).
    func hash(cost: Int) throws -> String {
        if let hash = hashes.withLock({ $0[cost] }) { return hash }
        let hash = try Password.hash(SessionData.randomId().prefix(Password.maximumLength).description, cost: cost)
        return hashes.withLock { hashes in
            if let made = hashes[cost] { return made }
            hashes[cost] = hash
            return hash
        }
    }
}
