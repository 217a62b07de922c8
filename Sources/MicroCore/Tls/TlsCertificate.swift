import Foundation
import NIOSSL

/// A certificate and its key, read from ``TlsSettings``' files and checked, as the server's
/// TLS context: the start-up's and each reload's, so that both refuse the same faults, each
/// in one line naming the file.
struct TlsCertificate: Sendable {
    /// What new connections are served with.
    let context: NIOSSLContext
    /// When the certificate stops being valid.
    let notValidAfter: Date
    let settings: TlsSettings

    /// Reads and checks the files: a certificate that is missing, unreadable, not PEM, not yet
    /// or no longer valid; a key that is missing, unreadable, not PEM, open to every local user
    /// (a group may read it), or not the certificate's. Each throws one line naming the file and the fault.
    init(_ settings: TlsSettings, now: Date = Date()) throws(ConfigurationError) {
        self.settings = settings
        let certificateFile = settings.certificateFile
        let keyFile = settings.keyFile
        try Self.checkReadable(certificateFile, what: "TLS certificate")
        // A key kept in the certificate's file is as open as that file is.
        if let mode = Self.mode(of: certificateFile), mode & 0o007 != 0,
            let text = try? String(contentsOfFile: certificateFile, encoding: .utf8), text.contains("PRIVATE KEY-----")
        {
            throw ConfigurationError(
                "TLS certificate \(certificateFile): holds a private key, and every local user can read it; keep the key in a file of its own, readable by the service only (MICRO_TLS_KEY).")
        }
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMFile(certificateFile) } catch {
            throw ConfigurationError("TLS certificate \(certificateFile): not a PEM certificate (\(error)).")
        }
        guard let leaf = chain.first else {
            throw ConfigurationError("TLS certificate \(certificateFile): holds no PEM certificate (-----BEGIN CERTIFICATE-----).")
        }
        let notValidBefore = Date(timeIntervalSince1970: TimeInterval(leaf.notValidBefore))
        notValidAfter = Date(timeIntervalSince1970: TimeInterval(leaf.notValidAfter))
        if notValidAfter <= now {
            throw ConfigurationError("TLS certificate \(certificateFile): expired on \(Self.format(notValidAfter)); renew it.")
        }
        if notValidBefore > now {
            throw ConfigurationError("TLS certificate \(certificateFile): not valid before \(Self.format(notValidBefore)); check the clock or the certificate.")
        }
        try Self.checkReadable(keyFile, what: "TLS key")
        // Readable by a group is the usual way to share a key with a service (Debian's
        // ssl-cert group, a certbot hook's copy); readable by everyone is a leaked key.
        if let mode = Self.mode(of: keyFile), mode & 0o007 != 0 {
            throw ConfigurationError(
                "TLS key \(keyFile): every local user can \(mode & 0o004 != 0 ? "read" : "use") it (mode \(String(mode & 0o777, radix: 8))); make it private: chmod o-rwx \(PrivateFile.shellQuoted(keyFile))")
        }
        let key: NIOSSLPrivateKey
        do { key = try NIOSSLPrivateKey(file: keyFile, format: .pem) } catch {
            throw ConfigurationError("TLS key \(keyFile): not a PEM private key (\(error)).")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.maximumTLSVersion = .tlsv13
        configuration.cipherSuites = Self.cipherSuites
        // How long a connection the server closes waits for the client's close_notify. Browsers
        // seldom send one, and until it comes or this passes, the connection stays open.
        configuration.shutdownTimeout = .seconds(1)
        do { context = try NIOSSLContext(configuration: configuration) } catch {
            throw ConfigurationError(
                "TLS key \(keyFile): cannot be used with the certificate \(certificateFile); is it that certificate's key, and does the certificate file start with the server's own certificate, its intermediates after it? (\(error))")
        }
    }

    /// TLS 1.2's suites: forward secrecy and authenticated encryption only (Mozilla's
    /// "intermediate" list), without the CBC and SHA-1 suites swift-nio-ssl offers by default.
    /// TLS 1.3 has only such suites and ignores this list.
    static let cipherSuites = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
        "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384",
        "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    ].joined(separator: ":")

    /// For the reload's log line: `TLS certificate cert.pem (valid until 2027-02-26)`.
    var summary: String {
        "TLS certificate \(settings.certificateFile) (valid until \(Self.format(notValidAfter)))"
    }

    /// A missing or unreadable file, in the system's words, or something other than a file.
    private static func checkReadable(_ path: String, what: String) throws(ConfigurationError) {
        guard access(path, R_OK) == 0 else {
            throw ConfigurationError("\(what) \(path): cannot be read (\(String(cString: strerror(errno)))).")
        }
        guard let mode = mode(of: path), mode & S_IFMT == S_IFREG else {
            throw ConfigurationError("\(what) \(path): is not a file.")
        }
    }

    /// The file's type and permissions; nil when it cannot be looked at.
    private static func mode(of path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode : nil
    }

    private static func format(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash))
    }
}
