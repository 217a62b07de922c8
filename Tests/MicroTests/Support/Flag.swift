import NIOConcurrencyHelpers

/// A flag one task raises and another watches.
final class Flag: Sendable {
    private let raised = NIOLockedValueBox(false)

    /// Whether it was raised.
    var isSet: Bool { raised.withLockedValue { $0 } }

    /// Raises it.
    func set() { raised.withLockedValue { $0 = true } }

    /// Waits at most `seconds` for it to be raised; returns whether it was.
    func wait(upTo seconds: Double = 2) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while !isSet, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(2))
        }
        return isSet
    }
}
