import Foundation
import NIOSSL

/// Sends each message through a mail server over a connection of its own: the greeting,
/// `EHLO`, `STARTTLS` when the settings ask for it, `AUTH` when they give a login, then
/// `MAIL FROM`, `RCPT TO`, `DATA` and `QUIT`.
///
/// ```swift
/// if let smtp = try SmtpSettings.fromProcess(app.settings.variables) {
///     let mailer = try SmtpMailer(settings: smtp)
///     try await mailer.send(MailMessage(from: smtp.from, fromName: smtp.fromName, to: address,
///                                       subject: "Set your password", body: text))
/// }
/// ```
///
/// Every wait is bounded: the connection, each reply, and the whole message. A server that
/// refuses, answers out of turn, closes early or shows a certificate that is not trusted for
/// its name fails the message with a ``MailError`` that quotes its reply; so does a server
/// asked for `STARTTLS` that does not offer it, before anything is sent. A password goes only
/// over TLS or to this machine, and never into an error.
public struct SmtpMailer: Mailer {
    /// Where and how it sends.
    public let settings: SmtpSettings
    /// The longest wait for the connection.
    public let connectTimeout: Duration
    /// The longest wait for each of the server's replies.
    public let replyTimeout: Duration
    /// The longest one message may take, from connecting to the server's yes to its data.
    public let totalTimeout: Duration
    let tls: NIOSSLContext?
    /// The name `EHLO` gives: the machine's host name, or `localhost` when it is not one.
    let clientName: String

    /// A mailer for `settings`; throws when they cannot be used: a password that would cross
    /// the network unencrypted, a CA file that cannot be read.
    public init(
        settings: SmtpSettings, connectTimeout: Duration = .seconds(10), replyTimeout: Duration = .seconds(30),
        totalTimeout: Duration = .seconds(120)
    ) throws(ConfigurationError) {
        if let problem = settings.problem() { throw ConfigurationError(problem) }
        self.settings = settings
        self.connectTimeout = connectTimeout
        self.replyTimeout = replyTimeout
        self.totalTimeout = totalTimeout
        tls = try settings.tlsContext()
        clientName = Self.hostName()
    }

    /// Sends `message`; throws a ``MailError`` naming the server and saying why it was not sent.
    public func send(_ message: MailMessage) async throws {
        let deadline = ContinuousClock.now + totalTimeout
        do throws(SmtpFailure) {
            let connection = try await SmtpConnection.open(
                host: settings.host, port: settings.port, tls: settings.security == .implicitTls ? tls : nil, within: connectTimeout)
            do throws(SmtpFailure) {
                try await converse(message, over: SmtpSession(connection: connection, deadline: deadline, mailer: self))
                await connection.close()
            } catch {
                await connection.close()
                throw error
            }
        } catch {
            throw MailError(redacted("\(settings.endpoint): \(error.description)"))
        }
    }

    /// `text` without the password, in any form a server could echo it back in.
    private func redacted(_ text: String) -> String {
        guard let password = settings.password, !password.isEmpty else { return text }
        let login = settings.login ?? ""
        var text = text
        for secret in [password, Self.base64(password), Self.base64("\0\(login)\0\(password)")] {
            text = text.replacingOccurrences(of: secret, with: "[password]")
        }
        return text
    }

    static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return SmtpUrl.hostProblem(name) == nil && IpAddress(name) == nil ? name : "localhost"
    }
}
