import Foundation
import NIOConcurrencyHelpers

/// A clock tests move by hand, to travel in time through session timeouts:
///
/// ```swift
/// let clock = TestClock()
/// let app = isolatedApp { $0.clock = { clock.now } }
/// clock.advance(seconds: 601)
/// ```
package final class TestClock: Sendable {
    private let current: NIOLockedValueBox<Date>

    /// A clock showing `start`.
    package init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        current = NIOLockedValueBox(start)
    }

    /// The time it shows.
    package var now: Date { current.withLockedValue { $0 } }

    /// Moves the clock forward.
    package func advance(seconds: Double) {
        current.withLockedValue { $0 += seconds }
    }
}
