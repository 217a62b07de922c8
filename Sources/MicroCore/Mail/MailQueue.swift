import Logging

/// Messages waiting for a ``Mailer``, sent in the background in their order, one at a time,
/// so that a route answers without waiting on a mail server, and in the same time whether it
/// sent a message or not (a "forgot password" form must not tell which addresses have accounts).
///
/// ```swift
/// let mail = MailQueue(mailer: try SmtpMailer(settings: smtp), logger: app.logger)
/// guard mail.enqueue(message) else { throw HttpError(.serviceUnavailable, "Mail cannot be sent right now.") }
/// ...
/// await mail.shutdown()
/// ```
///
/// It holds at most `capacity` messages: past that, ``enqueue(_:)`` refuses, so a flood of
/// requests cannot grow it without bound. A message that cannot be sent is logged as an error
/// with the ``MailError``'s description, and the next one is sent.
public final class MailQueue: Sendable {
    /// The most messages that wait at once.
    public let capacity: Int
    private let logger: Logger
    private let continuation: AsyncStream<Queued>.Continuation
    private let worker: Task<Void, Never>
    /// The messages taken and not yet sent or given up.
    private let pending: Locked<Int>
    /// Why the last message was not sent and when, until a later one is.
    private let failure: Locked<(reason: String, at: ContinuousClock.Instant)?>
    private let isShutDown = Locked(false)

    /// A message and who waits for its outcome (nil when sent, else why not).
    private struct Queued: Sendable {
        let message: MailMessage
        let done: (@Sendable (String?) -> Void)?
    }

    /// A queue in front of `mailer`, holding at most `capacity` messages (at least one), logging
    /// to `logger`; it starts sending at once.
    public init(mailer: any Mailer, capacity: Int = 100, logger: Logger = Logger(label: "micro")) {
        self.capacity = max(1, capacity)
        self.logger = logger
        let (stream, continuation) = AsyncStream.makeStream(of: Queued.self, bufferingPolicy: .bufferingOldest(self.capacity))
        self.continuation = continuation
        let pending = Locked(0)
        self.pending = pending
        let failure = Locked<(reason: String, at: ContinuousClock.Instant)?>(nil)
        self.failure = failure
        worker = Task {
            for await queued in stream {
                let message = queued.message
                do {
                    try await mailer.send(message)
                    failure.withLock { $0 = nil }
                    logger.debug("Mail to \(message.to) sent.")
                    queued.done?(nil)
                } catch {
                    failure.withLock { $0 = ("\(error)", .now) }
                    logger.error("Mail to \(message.to) not sent: \(error)")
                    queued.done?("\(error)")
                }
                pending.withLock { $0 -= 1 }
            }
        }
    }

    /// A queue let go of without ``shutdown(timeout:)`` (an app's that stops, a test's) ends its
    /// sending task after what it holds, rather than leave it waiting for ever on a stream
    /// nothing can add to.
    deinit {
        continuation.finish()
    }

    /// Takes `message` to send; false when the queue is full or shut down (logged as a
    /// warning), and the message is not sent.
    public func enqueue(_ message: MailMessage) -> Bool {
        enqueue(Queued(message: message, done: nil))
    }

    /// Sends `message` in its turn and waits for it, at most `timeout`: nil once it is sent, else
    /// why it was not (the queue full or shut down, the server's refusal, no outcome in time; a
    /// message whose wait ended may still be sent). For a page that must say whether it went.
    public func send(_ message: MailMessage, waitingAtMost timeout: Duration) async -> String? {
        let outcome: String?? = await Self.first(within: timeout) { settle in
            if !self.enqueue(Queued(message: message, done: { settle($0) })) { settle("the mail queue is full or shut down") }
        }
        return outcome ?? "it was not sent within \(SmtpFailure.words(timeout))"
    }

    private func enqueue(_ queued: Queued) -> Bool {
        let message = queued.message
        pending.withLock { $0 += 1 }
        switch continuation.yield(queued) {
        case .enqueued:
            return true
        case .dropped:
            pending.withLock { $0 -= 1 }
            logger.warning("Mail to \(message.to) not sent: the mail queue is full (\(capacity) messages waiting).")
            return false
        case .terminated:
            pending.withLock { $0 -= 1 }
            logger.warning("Mail to \(message.to) not sent: the mail queue is shut down.")
            return false
        @unknown default:
            pending.withLock { $0 -= 1 }
            return false
        }
    }

    /// Why the last message could not be sent, when that was less than `recent` ago and nothing
    /// was sent since: the mail server is likely down. A page that must answer alike whether it
    /// sends or not ("forgot password") asks this before it looks anything up.
    public func recentFailure(within recent: Duration) -> String? {
        failure.withLock { failure in
            guard let failure, ContinuousClock.now - failure.at < recent else { return nil }
            return failure.reason
        }
    }

    /// Whether a message would be taken now: the queue is not shut down and has room.
    public var hasRoom: Bool { pending.withLock { $0 } < capacity && !isShutDown.withLock { $0 } }

    /// Takes no more messages and waits for those it holds to be sent, at most `timeout`; then
    /// cancels the sending and logs how many were not sent.
    public func shutdown(timeout: Duration = .seconds(30)) async {
        isShutDown.withLock { $0 = true }
        continuation.finish()
        let worker = worker
        guard await Self.first(within: timeout, { settle in Task { await worker.value; settle(()) } }) == nil else { return }
        worker.cancel()
        let unsent = pending.withLock { $0 }
        logger.error("The mail queue stopped after \(SmtpFailure.words(timeout)) with \(unsent) message\(unsent == 1 ? "" : "s") not sent.")
    }

    /// The first value `start` hands to the function it is given, or nil when `timeout` passes
    /// before; returns by then whatever `start` began goes on doing.
    private static func first<T: Sendable>(within timeout: Duration, _ start: (@escaping @Sendable (T) -> Void) -> Void) async -> T? {
        let state = Locked<(settled: Bool, value: T?, waiter: CheckedContinuation<T?, Never>?)>((false, nil, nil))
        @Sendable func settle(_ value: T?) {
            let waiter = state.withLock { state -> CheckedContinuation<T?, Never>? in
                guard !state.settled else { return nil }
                state.settled = true
                state.value = value
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: value)
        }
        start { settle($0) }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            settle(nil)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { waiter in
            let settled = state.withLock { state -> (Bool, T?) in
                if !state.settled { state.waiter = waiter }
                return (state.settled, state.value)
            }
            if settled.0 { waiter.resume(returning: settled.1) }
        }
    }
}
