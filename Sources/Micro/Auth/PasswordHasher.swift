import NIOCore
import NIOPosix
import Synchronization

/// Runs bcrypt off the event loops, on threads of its own, so a burst of sign-ins never stalls
/// other requests. It uses at most `threads` cores (half of them by default), leaving the
/// rest to the server.
public final class PasswordHasher: Sendable {
    private let pool: NIOThreadPool
    /// How many verifications it ran: tests read it to see that an unknown user costs one too.
    let verifications = Atomic<Int>(0)

    /// The process's shared hasher.
    public static let shared = PasswordHasher(threads: max(1, System.coreCount / 2))

    /// A hasher with `threads` threads of its own.
    public init(threads: Int) {
        pool = NIOThreadPool(numberOfThreads: max(1, threads))
        pool.start()
    }

    /// Runs other password work (a tool that hashes with a chosen cost, say) on the hasher's
    /// threads, off the event loops.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.runIfActive(work)
    }

    /// ``Password/hash(_:cost:)`` on the hasher's threads.
    public func hash(_ password: String, cost: Int = Password.defaultCost) async throws -> String {
        try await pool.runIfActive { try Password.hash(password, cost: cost) }
    }

    /// ``Password/verify(_:against:)`` on the hasher's threads.
    public func verify(_ password: String, against hash: String) async throws -> Bool {
        verifications.add(1, ordering: .relaxed)
        return try await pool.runIfActive { Password.verify(password, against: hash) }
    }
}
