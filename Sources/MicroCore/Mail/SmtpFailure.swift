import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// What went wrong in a conversation with a mail server, without the server's name:
/// ``SmtpMailer`` puts that in front when it makes the ``MailError``.
struct SmtpFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as the rest of a sentence after `host:port: `.
    let description: String

    init(_ description: String) { self.description = description }
}

extension SmtpFailure {
    /// A failure of the connection (NIO's, NIOSSL's) in words for the log.
    init(describing error: any Error) {
        if let failure = error as? SmtpFailure {
            self = failure
        } else if let error = error as? NIOSSLError, case .uncleanShutdown = error {
            self.init("the server closed the connection")
        } else if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            self.init("the server's certificate does not name the host it was reached by: TLS failed (\(error))")
        } else if error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError {
            let text = String(describing: error)
            if text.contains("CERTIFICATE_VERIFY_FAILED") {
                self.init("the server's certificate was refused (is it signed by a CA this client trusts, the system's or MICRO_SMTP_CA_FILE's, and still valid?): TLS failed (\(text))")
            } else {
                self.init("TLS failed (\(text))")
            }
        } else if let error = error as? IOError, error.errnoCode == ECONNRESET || error.errnoCode == EPIPE {
            self.init("the server closed the connection")
        } else if let error = error as? IOError {
            self.init("the connection failed: \(Self.systemWords(error.errnoCode))")
        } else {
            self.init("the connection failed: \(error)")
        }
    }

    /// A failure to connect, in words for the log: `connection refused`.
    init(connecting error: any Error, within timeout: Duration) {
        if let error = error as? ChannelError, case .connectTimeout = error {
            self.init("no connection within \(SmtpFailure.words(timeout))")
        } else if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first {
                self.init(connecting: first.error, within: timeout)
            } else if let lookup = error.dnsAError ?? error.dnsAAAAError {
                self.init("the host name cannot be resolved (\(lookup))")
            } else {
                self.init("cannot connect (\(error))")
            }
        } else if let error = error as? IOError {
            self.init(Self.systemWords(error.errnoCode))
        } else {
            self.init("cannot connect (\(error))")
        }
    }

    /// `10 s`, `0.5 s`.
    static func words(_ duration: Duration) -> String {
        let seconds = duration.seconds
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    /// `connection refused`: the system's words for `errno`, in lowercase as the rest of a sentence.
    private static func systemWords(_ code: CInt) -> String {
        let words = String(cString: strerror(code))
        return words.prefix(1).lowercased() + words.dropFirst()
    }
}
