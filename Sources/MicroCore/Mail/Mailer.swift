/// What sends a ``MailMessage``: ``SmtpMailer`` through a mail server, or a test's recording
/// one (`RecordingMailer` in MicroTesting).
///
/// ```swift
/// let mailer: any Mailer = try SmtpMailer(settings: smtp)
/// try await mailer.send(MailMessage(from: smtp.from, to: address, subject: "Welcome", body: text))
/// ```
///
/// A route should not wait on a mail server: hand messages to a ``MailQueue``, which sends
/// them in the background, one at a time.
public protocol Mailer: Sendable {
    /// Sends `message`, or throws a ``MailError`` saying why it was not sent.
    func send(_ message: MailMessage) async throws
}
