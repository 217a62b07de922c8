import Foundation

/// The mail servers Tests/Mail/with-mail-server.sh starts, as it names them in MICRO_TEST_SMTP_*.
public struct MailTestServers: Sendable {
    public let plainPort, startTlsPort, tlsPort, noTlsPort: Int
    /// The CA that signed the servers' certificate, and one that did not.
    public let caFile, otherCaFile: String
    /// What the servers' AUTH takes.
    public let login, password: String
    /// Where each server keeps what it receives, in a folder of its own.
    public let maildir: String

    /// The servers of this process's environment; nil when the script did not start any.
    public static let current: MailTestServers? = {
        let variables = ProcessInfo.processInfo.environment
        func port(_ name: String) -> Int? { variables["MICRO_TEST_SMTP_\(name)_PORT"].flatMap { Int($0) } }
        guard let plain = port("PLAIN"), let startTls = port("STARTTLS"), let tls = port("TLS"), let noTls = port("NOTLS"),
            let ca = variables["MICRO_TEST_SMTP_CA_FILE"], let otherCa = variables["MICRO_TEST_SMTP_OTHER_CA_FILE"],
            let login = variables["MICRO_TEST_SMTP_LOGIN"], let password = variables["MICRO_TEST_SMTP_PASSWORD"],
            let maildir = variables["MICRO_TEST_SMTP_MAILDIR"]
        else { return nil }
        return MailTestServers(
            plainPort: plain, startTlsPort: startTls, tlsPort: tls, noTlsPort: noTls, caFile: ca, otherCaFile: otherCa, login: login,
            password: password, maildir: maildir)
    }()
}
