import Foundation
import NIOSSL

extension SmtpSettings {
    /// The TLS context connections to the server use: TLS 1.2 or 1.3, the server's certificate
    /// checked against the system's CAs or ``certificateAuthorityFile``'s, and its name against
    /// ``host``. Nil for ``SmtpSecurity/plain``.
    func tlsContext() throws(ConfigurationError) -> NIOSSLContext? {
        guard security.usesTls else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.certificateVerification = .fullVerification
        configuration.trustRoots = try trustRoots()
        // How long closing waits for the server's close_notify: the message is sent by then.
        configuration.shutdownTimeout = .seconds(1)
        do { return try NIOSSLContext(configuration: configuration) } catch {
            throw ConfigurationError("The TLS context for the mail server \(endpoint) cannot be made: \(error)")
        }
    }

    /// The system's CAs, or the certificates of ``certificateAuthorityFile`` (which must hold at least one).
    func trustRoots() throws(ConfigurationError) -> NIOSSLTrustRoots {
        guard let file = certificateAuthorityFile else { return .default }
        guard access(file, R_OK) == 0 else {
            throw ConfigurationError("MICRO_SMTP_CA_FILE \(file): cannot be read (\(String(cString: strerror(errno)))).")
        }
        let certificates: [NIOSSLCertificate]
        do { certificates = try NIOSSLCertificate.fromPEMFile(file) } catch {
            throw ConfigurationError("MICRO_SMTP_CA_FILE \(file): cannot be read as PEM certificates (\(error)).")
        }
        guard !certificates.isEmpty else {
            throw ConfigurationError("MICRO_SMTP_CA_FILE \(file): holds no PEM certificate (-----BEGIN CERTIFICATE-----).")
        }
        return .certificates(certificates)
    }
}
