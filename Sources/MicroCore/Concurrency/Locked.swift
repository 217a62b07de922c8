import NIOConcurrencyHelpers

/// A value shared between threads, behind a lock: the standard library's `Mutex` API
/// (`withLock`), on a pthread mutex (NIO's `NIOLock`).
///
/// On Linux the standard library's `Mutex` is a priority-inheriting futex. When it is
/// contended, the kernel hands it to the waiting thread, a hand-over the thread sanitizer
/// cannot see: it reported the accesses the lock protects as data races (a SQLite look-up
/// under concurrent sign-ins, in `.ci/run`'s sanitizer pass). A pthread mutex is one it sees.
///
/// NIO's `NIOLockedValueBox` is Sendable only for a Sendable value; like `Mutex`, this one
/// takes any value (the SQLite store's connection is not Sendable), handing it over with
/// `sending` instead.
public final class Locked<Value>: @unchecked Sendable {
    // Inlinable, as the caches built on it are (BoundedCache).
    @usableFromInline let lock = NIOLock()
    @usableFromInline var value: Value

    /// `value`, behind its own lock.
    @inlinable
    public init(_ value: consuming sending Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    @inlinable
    public func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
