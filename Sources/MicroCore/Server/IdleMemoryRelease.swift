#if os(Linux)
import CMalloc
#endif
import NIOCore
import NIOPosix

/// Gives the allocator's free memory back to the system once the server has had no
/// connection for a quiet while.
///
/// glibc's allocator keeps what a load freed: in each thread's arena, and in pages between
/// blocks still in use, so after a burst of clients a server's resident memory stays near its
/// peak for as long as it runs. When the last connection closes and none opens for
/// ``quietPeriod``, `malloc_trim` returns the free pages. Only then: trimming while serving
/// would give back pages the next requests fault in again, and it holds the allocator's locks
/// while it walks the heap. ``Connections`` keeps one, under its lock.
struct IdleMemoryRelease {
    /// How long the server must have had no connection before its free memory is given back.
    static let quietPeriod = TimeAmount.seconds(2)

    /// What a check decides.
    enum Decision {
        /// Quiet since the last check: give the memory back.
        case release
        /// Connections came and went since the last check: check again after another quiet period.
        case wait
        /// A connection is open: nothing to do until the last one closes again.
        case none
    }

    /// Connections admitted so far.
    private var admitted = 0
    /// The count at the last check (or when it was scheduled).
    private var admittedAtCheck = 0
    private var checkScheduled = false

    mutating func connectionAdmitted() {
        admitted &+= 1
    }

    /// The last open connection closed: whether a check is to be scheduled (one at a time).
    mutating func lastConnectionClosed() -> Bool {
        guard !checkScheduled else { return false }
        checkScheduled = true
        admittedAtCheck = admitted
        return true
    }

    /// The scheduled check, with `open` connections now.
    mutating func check(open: Int) -> Decision {
        if open > 0 {
            checkScheduled = false
            return .none
        }
        if admitted != admittedAtCheck {
            admittedAtCheck = admitted
            return .wait
        }
        checkScheduled = false
        return .release
    }

    /// ``releaseFreeMemory()`` on NIO's thread pool: the allocator walks its heap, which an
    /// event loop (an accept, say) should not wait for.
    @Sendable static func releaseInBackground() {
        NIOThreadPool.singleton.submit { _ in releaseFreeMemory() }
    }

    /// Returns the free memory of every arena to the system.
    static func releaseFreeMemory() {
        #if os(Linux)
        _ = malloc_trim(0)
        #endif
    }
}
