import NIOConcurrencyHelpers
import NIOSSL

/// The certificate new connections are served with: read at start-up, and again on each
/// reload (`SIGHUP`), which swaps a good renewal in for the connections after it; a renewal
/// that fails is thrown (``App/reload()`` logs it) and the certificate in use is kept.
final class TlsContext: Reloadable {
    private let settings: TlsSettings
    private let certificate: NIOLockedValueBox<TlsCertificate>

    /// Reads the files; a fault stops start-up, naming the file.
    init(_ settings: TlsSettings) throws(ConfigurationError) {
        self.settings = settings
        certificate = NIOLockedValueBox(try TlsCertificate(settings))
    }

    /// The context for a new connection.
    var current: NIOSSLContext { certificate.withLockedValue { $0.context } }

    func reload() throws {
        // Read outside the lock: new connections keep taking the current one meanwhile.
        let renewed = try TlsCertificate(settings)
        certificate.withLockedValue { $0 = renewed }
    }

    var reloadSummary: String { certificate.withLockedValue { $0.summary } }
}
