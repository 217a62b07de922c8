#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOPosix
import Synchronization
import MicroCore

/// Runs bcrypt off the event loops, on threads of its own, so a burst of sign-ins never stalls
/// other requests. It uses at most `threads` cores (half of them by default), and its threads
/// run under Linux's `SCHED_BATCH` policy at nice 19, so that on a busy machine the server's
/// other answers come first, while a sign-in still always progresses.
public final class PasswordHasher: Sendable {
    private let pool: NIOThreadPool
    /// The most checks waiting or running at once; beyond it callers get a 503 at once rather
    /// than queue behind a flood.
    public let capacity: Int
    private let waiting = Atomic<Int>(0)
    /// How many verifications it ran: tests read it to see that an unknown user costs one too.
    let verifications = Atomic<Int>(0)

    /// The process's shared hasher.
    public static let shared = PasswordHasher(threads: max(1, System.coreCount / 2))

    /// Whether its threads give way to the event loops (see ``yieldToTheEventLoops()``).
    private let yields: Bool

    /// A hasher with `threads` threads of its own, and room for `capacity` checks at once. With
    /// `yielding` (the default) its threads run at the lowest share of the CPU that still
    /// guarantees progress; without, at the process's own priority.
    public init(threads: Int, capacity: Int = 32, yielding: Bool = true) {
        pool = NIOThreadPool(numberOfThreads: max(1, threads))
        self.capacity = max(1, capacity)
        yields = yielding
        pool.start()
    }

    deinit {
        // Its threads end with it (an app's own hasher, in tests say).
        pool.shutdownGracefully { _ in }
    }

    /// Runs other password work (a tool that hashes with a chosen cost, say) on the hasher's
    /// threads, off the event loops.
    /// Throws a 503 ``/MicroCore/HttpError`` when `capacity` checks are already waiting or running.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        guard waiting.wrappingAdd(1, ordering: .relaxed).newValue <= capacity else {
            waiting.wrappingSubtract(1, ordering: .relaxed)
            throw HttpError(.serviceUnavailable, "Too many password checks at once. Please try again in a moment.",
                headers: ["Retry-After": "1"])
        }
        defer { waiting.wrappingSubtract(1, ordering: .relaxed) }
        let yields = yields
        return try await pool.runIfActive {
            if yields { Self.yieldToTheEventLoops() }
            return try work()
        }
    }

    /// ``Password/hash(_:cost:)`` on the hasher's threads.
    public func hash(_ password: String, cost: Int = Password.defaultCost) async throws -> String {
        try await run { try Password.hash(password, cost: cost) }
    }

    /// ``Password/verify(_:against:)`` on the hasher's threads.
    public func verify(_ password: String, against hash: String) async throws -> Bool {
        verifications.add(1, ordering: .relaxed)
        return try await run { Password.verify(password, against: hash) }
    }

    /// Gives the calling pool thread the lowest share of the CPU that still guarantees progress:
    /// Linux's `SCHED_BATCH` policy (woken, it never preempts a running event loop) at nice 19
    /// (a weight of 15 against the loops' 1024). `SCHED_IDLE`, tried
    /// before, starved sign-ins for good while cheap requests kept every core busy (seen in the
    /// soak of Tests/Load: no answer in 30 s); nice 10 alone let bcrypt hold a core for
    /// milliseconds at a time. Falls back to nice 19 where the policy is refused.
    private static func yieldToTheEventLoops() {
        #if os(Linux)
        let schedBatch: Int32 = 3  // SCHED_BATCH in <sched.h>, behind _GNU_SOURCE so not imported
        var parameters = sched_param()
        if sched_getscheduler(0) != schedBatch { _ = sched_setscheduler(0, schedBatch, &parameters) }
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        // On Linux the "process" here is the calling thread: the server's other threads keep theirs.
        if getpriority(which, 0) < 19 { _ = setpriority(which, 0, 19) }
        #endif
    }
}
