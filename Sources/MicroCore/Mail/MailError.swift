/// Why a message was not sent, in words for the log: the server and port, what went wrong,
/// and the server's own reply when it gave one (its control characters escaped).
///
/// ```swift
/// do { try await mailer.send(message) } catch {
///     logger.error("Mail not sent: \(error)")   // smtp.example.com:587: connection refused
/// }
/// ```
///
/// A description never holds a password: not the one in the settings, and not one a server
/// echoes back.
public struct MailError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as a sentence without its full stop.
    public let description: String

    /// An error saying `description`; a test's ``Mailer`` makes one to stand for a failure.
    public init(_ description: String) { self.description = description }
}
