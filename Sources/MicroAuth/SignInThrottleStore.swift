import Crypto
import MicroCore

/// Where the failure counts of ``SignInThrottle`` live when several instances of an app share
/// them (a database): five failures spread over any number of instances then lock the name on
/// all of them. Checks in flight stay counted by each instance in memory.
///
/// Set it in ``Authentication/throttleStore``; without one, counts stay in the process.
public protocol SignInThrottleStore: Sendable {
    /// The key usernames are digested under: the same on every instance that shares the store,
    /// so that a name counts under one key everywhere.
    var digestKey: SymmetricKey { get }
    /// The live counts (those whose window, `window` seconds long, has not passed at `now`).
    func failures(username: SignInThrottle.Key?, address: SignInThrottle.Key?, window: Int64, now: Int64) async throws
        -> SignInFailures
    /// Counts one failure against both, atomically: a window that has passed begins anew.
    /// Returns the counts after it.
    func recordFailure(username: SignInThrottle.Key?, address: SignInThrottle.Key?, window: Int64, now: Int64) async throws
        -> SignInFailures
    /// Forgets the username's failures: a sign-in succeeded.
    func clear(username: SignInThrottle.Key) async throws
}
