import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOPosix

/// Waits for a future or a deadline, whichever comes first; a cancelled wait ends at once.
enum FutureOrDeadline {
    /// True when `future` completed within `seconds`; false when the time ran out first or
    /// the waiting task was cancelled.
    static func wait(_ future: EventLoopFuture<Void>, orSeconds seconds: Double) async -> Bool {
        let outcome = Outcome()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                outcome.deliver(to: continuation)
                future.whenComplete { _ in outcome.settle(true) }
                future.eventLoop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) { outcome.settle(false) }
            }
        } onCancel: {
            outcome.settle(false)
        }
    }

    /// The first of the answers, handed to the waiter once it is there.
    private final class Outcome: Sendable {
        private let state = NIOLockedValueBox<(value: Bool?, waiter: CheckedContinuation<Bool, Never>?)>((nil, nil))

        /// Resumes `waiter` with the outcome, at once when it is already settled.
        func deliver(to waiter: CheckedContinuation<Bool, Never>) {
            let value = state.withLockedValue { state -> Bool? in
                if state.value == nil { state.waiter = waiter }
                return state.value
            }
            if let value { waiter.resume(returning: value) }
        }

        /// Settles it as `value` unless it is already settled.
        func settle(_ value: Bool) {
            let waiter = state.withLockedValue { state -> CheckedContinuation<Bool, Never>? in
                guard state.value == nil else { return nil }
                state.value = value
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: value)
        }
    }
}
