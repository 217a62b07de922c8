/// How a connection to the mail server is protected: the scheme of `MICRO_SMTP_URL`.
public enum SmtpSecurity: String, Sendable, Equatable, CaseIterable {
    /// `smtp://`: no TLS, for a relay on the same machine or network (port 25 by default).
    /// No password is ever sent this way except to a loopback address.
    case plain = "smtp"
    /// `smtp+starttls://`: plain at first, then TLS through `STARTTLS` before anything else is
    /// said (port 587 by default). A server that does not offer it is sent nothing.
    case startTls = "smtp+starttls"
    /// `smtps://`: TLS from the first byte, RFC 8314's implicit TLS (port 465 by default).
    case implicitTls = "smtps"

    /// The port its scheme uses when the URL names none.
    public var defaultPort: Int {
        switch self {
        case .plain: 25
        case .startTls: 587
        case .implicitTls: 465
        }
    }

    /// Whether the server's certificate is checked and what is said is encrypted.
    public var usesTls: Bool { self != .plain }
}
