import Dispatch
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Catches SIGINT and SIGTERM (their default action turned off) until the first arrives, and
/// SIGHUP meanwhile, from the moment ``catching(_:hangup:)`` returns.
final class ShutdownSignal: Sendable {
    private struct State {
        var sources: [any DispatchSourceSignal] = []
        var received: Int32?
        var waiter: CheckedContinuation<Int32, Never>?
    }

    private let state = Locked(State())
    private let registered = DispatchGroup()

    /// Starts catching `signals`, and SIGHUP, which calls `hangup` each time, on a queue of its
    /// own so that a slow reload never holds up a shutdown; returns once Dispatch receives them.
    static func catching(_ signals: [Int32], hangup: @escaping @Sendable () -> Void) async -> ShutdownSignal {
        let catcher = ShutdownSignal(signals, hangup: hangup)
        // A signal source is registered with the kernel later, on Dispatch's own thread, and a
        // signal that comes between `SIG_IGN` and then is dropped: whoever sends SIGTERM as soon
        // as the start-up line appears would wait for an exit that never comes.
        await withCheckedContinuation { continuation in
            catcher.registered.notify(queue: .global()) { continuation.resume() }
        }
        return catcher
    }

    private init(_ signals: [Int32], hangup: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "micro.signals")
        let reloads = DispatchQueue(label: "micro.reload")
        state.withLock { state in
            for number in signals + [SIGHUP] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                registered.enter()
                source.setRegistrationHandler { [registered] in registered.leave() }
                if number == SIGHUP {
                    source.setEventHandler { reloads.async(execute: hangup) }
                } else {
                    source.setEventHandler { [weak self] in self?.receive(number) }
                }
                source.resume()
                state.sources.append(source)
            }
        }
    }

    /// The first of the signals, at once when it has already come.
    func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let received = state.withLock { state -> Int32? in
                if state.received == nil { state.waiter = continuation }
                return state.received
            }
            if let received { continuation.resume(returning: received) }
        }
    }

    private func receive(_ number: Int32) {
        let waiter = state.withLock { state -> CheckedContinuation<Int32, Never>? in
            guard state.received == nil else { return nil }
            state.received = number
            // Nothing more is caught (signals stay ignored): a second Ctrl-C or a SIGHUP does not
            // cut the graceful shutdown short.
            state.sources.forEach { $0.cancel() }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: number)
    }
}
