/// Where and how ``SmtpMailer`` sends mail: the server, its protection, the login, the CA to
/// trust and the sender, from `MICRO_SMTP_URL` and its companions (``fromProcess(_:)``) or made
/// in code.
///
/// ```swift
/// let smtp = SmtpSettings(host: "mail.example.com", security: .startTls,
///                         from: try MailAddress("tools@example.com"), fromName: "Lab Tools",
///                         login: "tools", password: secret)
/// ```
///
/// Its description never shows the password.
public struct SmtpSettings: Sendable, Equatable, CustomStringConvertible {
    /// The server's host name or IP address (without brackets for IPv6).
    public var host: String
    /// The server's port.
    public var port: Int
    /// Plain, STARTTLS or implicit TLS.
    public var security: SmtpSecurity
    /// The account to log in as (`AUTH PLAIN` or `AUTH LOGIN`); nil sends no `AUTH`.
    public var login: String?
    /// The account's password.
    public var password: String?
    /// A PEM file of the certificate authorities to trust instead of the system's (a company's
    /// own CA); nil trusts the system's.
    public var certificateAuthorityFile: String?
    /// The address messages are sent from (`MICRO_MAIL_FROM`).
    public var from: MailAddress
    /// The name shown with it (`Lab Tools`); nil for the address alone.
    public var fromName: String?

    /// Settings for `host`; `port` nil takes the default of `security`.
    public init(
        host: String, port: Int? = nil, security: SmtpSecurity, from: MailAddress, fromName: String? = nil,
        login: String? = nil, password: String? = nil, certificateAuthorityFile: String? = nil
    ) {
        self.host = host
        self.port = port ?? security.defaultPort
        self.security = security
        self.from = from
        self.fromName = fromName
        self.login = login
        self.password = password
        self.certificateAuthorityFile = certificateAuthorityFile
    }

    /// `smtp+starttls://tools@mail.example.com:587`, without the password.
    public var description: String {
        "\(security.rawValue)://\(login.map { "\($0)@" } ?? "")\(endpoint)"
    }

    /// `host:port`, an IPv6 host in brackets: how errors name the server.
    var endpoint: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }

    /// Whether `host` is this machine: `localhost`, 127.0.0.0/8 or `::1`.
    var isLoopback: Bool {
        if host.lowercased() == "localhost" { return true }
        guard let address = IpAddress(host) else { return false }
        return address.bytes.count == 4 ? address.bytes[0] == 127 : address.bytes == Array(repeating: 0, count: 15) + [1]
    }

    /// What is wrong with these settings, in words naming the variable that sets each; nil
    /// when nothing is. A password that could cross the network unencrypted is wrong.
    func problem() -> String? {
        if let problem = SmtpUrl.hostProblem(host) { return "MICRO_SMTP_URL: \(problem)." }
        if !(1...65535).contains(port) { return "MICRO_SMTP_URL: the port \(port) is not from 1 to 65535." }
        if login != nil, password == nil {
            return "MICRO_SMTP_URL names the login '\(ControlEscapingLogHandler.escape(login!))' without a password: add it (smtp+starttls://LOGIN:PASSWORD@HOST) or set MICRO_SMTP_PASSWORD_FILE."
        }
        if login == nil, password != nil { return "MICRO_SMTP_URL gives a password without a login." }
        if login != nil, !security.usesTls, !isLoopback {
            return "MICRO_SMTP_URL gives a login for \(self), which is neither TLS nor this machine: the password would cross the network unencrypted. Use smtp+starttls:// or smtps://."
        }
        if certificateAuthorityFile != nil, !security.usesTls {
            return "MICRO_SMTP_CA_FILE is set but MICRO_SMTP_URL is smtp://, which uses no TLS: use smtp+starttls:// or smtps://, or unset MICRO_SMTP_CA_FILE."
        }
        return nil
    }
}
