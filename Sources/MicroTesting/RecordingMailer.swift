import MicroCore

/// A `Mailer` for tests: keeps each message it is given instead of sending it, or
/// fails with the error it was told to.
///
/// ```swift
/// let mailer = RecordingMailer()
/// // ... the app sends, directly or through a MailQueue
/// let sent = await mailer.messages(atLeast: 1)
/// #expect(sent.first?.subject == "Set your password")
///
/// mailer.failure = MailError("smtp.example.com:587: connection refused")
/// ```
public final class RecordingMailer: Mailer {
    private let state: Locked<(messages: [MailMessage], failure: MailError?)>

    /// A mailer that keeps every message; with `failure`, one that fails each instead.
    public init(failure: MailError? = nil) {
        state = Locked(([], failure))
    }

    /// The messages sent so far, in order (not those that failed).
    public var messages: [MailMessage] { state.withLock { $0.messages } }

    /// What each send throws from now on; nil sends (keeps) again.
    public var failure: MailError? {
        get { state.withLock { $0.failure } }
        set { state.withLock { $0.failure = newValue } }
    }

    /// Keeps `message`, or throws ``failure``.
    public func send(_ message: MailMessage) async throws {
        try state.withLock { state throws(MailError) in
            if let failure = state.failure { throw failure }
            state.messages.append(message)
        }
    }

    /// The messages sent once there are at least `count` of them, or those sent when `timeout`
    /// has passed: for a message sent in the background (a `MailQueue`).
    public func messages(atLeast count: Int, within timeout: Duration = .seconds(5)) async -> [MailMessage] {
        let deadline = ContinuousClock.now + timeout
        while messages.count < count, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return messages
    }
}
