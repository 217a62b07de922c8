import NIOConcurrencyHelpers

/// A flag one task raises and another watches.
package final class Flag: Sendable {
    package init() {}

    private let raised = NIOLockedValueBox(false)

    /// Whether it was raised.
    package var isSet: Bool { raised.withLockedValue { $0 } }

    /// Raises it.
    package func set() { raised.withLockedValue { $0 = true } }

    /// Waits at most `seconds` for it to be raised; returns whether it was.
    package func wait(upTo seconds: Double = 2) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while !isSet, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(2))
        }
        return isSet
    }
}
