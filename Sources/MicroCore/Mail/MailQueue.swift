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
    private let continuation: AsyncStream<MailMessage>.Continuation
    private let worker: Task<Void, Never>
    /// The messages taken and not yet sent or given up.
    private let pending: Locked<Int>

    /// A queue in front of `mailer`, holding at most `capacity` messages (at least one), logging
    /// to `logger`; it starts sending at once.
    public init(mailer: any Mailer, capacity: Int = 100, logger: Logger = Logger(label: "micro")) {
        self.capacity = max(1, capacity)
        self.logger = logger
        let (stream, continuation) = AsyncStream.makeStream(of: MailMessage.self, bufferingPolicy: .bufferingOldest(self.capacity))
        self.continuation = continuation
        let pending = Locked(0)
        self.pending = pending
        worker = Task {
            for await message in stream {
                do {
                    try await mailer.send(message)
                    logger.debug("Mail to \(message.to) sent.")
                } catch {
                    logger.error("Mail to \(message.to) not sent: \(error)")
                }
                pending.withLock { $0 -= 1 }
            }
        }
    }

    /// Takes `message` to send; false when the queue is full or shut down (logged as a
    /// warning), and the message is not sent.
    public func enqueue(_ message: MailMessage) -> Bool {
        pending.withLock { $0 += 1 }
        switch continuation.yield(message) {
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

    /// Takes no more messages and waits for those it holds to be sent, at most `timeout`; then
    /// cancels the sending and logs how many were not sent.
    public func shutdown(timeout: Duration = .seconds(30)) async {
        continuation.finish()
        guard await Self.wait(for: worker, upTo: timeout) == false else { return }
        worker.cancel()
        let unsent = pending.withLock { $0 }
        logger.error("The mail queue stopped after \(SmtpFailure.words(timeout)) with \(unsent) message\(unsent == 1 ? "" : "s") not sent.")
    }

    /// Whether `task` finished within `timeout`; returns by then even when it did not.
    private static func wait(for task: Task<Void, Never>, upTo timeout: Duration) async -> Bool {
        let state = Locked<(finished: Bool?, waiter: CheckedContinuation<Bool, Never>?)>((nil, nil))
        @Sendable func settle(_ finished: Bool) {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard state.finished == nil else { return nil }
                state.finished = finished
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: finished)
        }
        Task {
            await task.value
            settle(true)
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            settle(false)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { waiter in
            let finished = state.withLock { state -> Bool? in
                if state.finished == nil { state.waiter = waiter }
                return state.finished
            }
            if let finished { waiter.resume(returning: finished) }
        }
    }
}
