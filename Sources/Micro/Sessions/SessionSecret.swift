import Foundation

/// Finds the session secret: the setting (or `MICRO_SESSION_SECRET`); in development a
/// generated one kept in a file; in tests a random one per process.
enum SessionSecret {
    static let minimumBytes = 32

    static func resolve(_ settings: Settings) throws(ConfigurationError) -> String {
        if let secret = settings.sessions.secret {
            guard secret.utf8.count >= minimumBytes else {
                throw ConfigurationError("The session secret (MICRO_SESSION_SECRET) is \(secret.utf8.count) bytes; it must be at least \(minimumBytes). Generate one with: openssl rand -hex 32")
            }
            return secret
        }
        switch settings.environment {
        case .production:
            throw ConfigurationError("MICRO_SESSION_SECRET is not set. In production Micro needs a secret of at least \(minimumBytes) bytes to encrypt session cookies; generate one with: openssl rand -hex 32")
        case .test:
            return testSecret
        case .development:
            return try fromFile(settings.sessions.secretFile)
        }
    }

    /// The secret kept in `path`, created (readable by the owner only) when missing.
    static func fromFile(_ path: String) throws(ConfigurationError) -> String {
        let manager = FileManager.default
        if manager.fileExists(atPath: path) {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ConfigurationError("\(path): cannot read the development session secret; delete the file to have a new one made.")
            }
            let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard secret.utf8.count >= minimumBytes else {
                throw ConfigurationError("\(path):1: the development session secret is shorter than \(minimumBytes) bytes; delete the file to have a new one made.")
            }
            return secret
        }
        let secret = randomSecret()
        guard manager.createFile(atPath: path, contents: Data((secret + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ConfigurationError("\(path): cannot write the development session secret; set MICRO_SESSION_SECRET or make the folder writable.")
        }
        return secret
    }

    /// The test environment's secret: made once per process, so that a session survives the
    /// app being rebuilt (a route defined after the first request) and another app of the
    /// same test run can read it.
    private static let testSecret = randomSecret()

    private static func randomSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
