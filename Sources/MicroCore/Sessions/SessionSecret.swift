import Foundation

/// Finds the session secret: the setting (or `MICRO_SESSION_SECRET`); in development a
/// generated one kept in a file; in tests a random one per process. Production refuses a
/// secret that is missing, shorter than 32 bytes or easy to guess (``SecretStrength``).
public enum SessionSecret {
    /// The fewest bytes a secret may have: 32, as `openssl rand -hex 32` gives twice over.
    public static let minimumBytes = 32

    static func resolve(_ settings: Settings) throws(ConfigurationError) -> String {
        if let secret = settings.sessions.secret {
            guard secret.utf8.count >= minimumBytes else {
                throw ConfigurationError("The session secret (MICRO_SESSION_SECRET) is \(secret.utf8.count) bytes; it must be at least \(minimumBytes). Generate one with: openssl rand -hex 32")
            }
            if settings.environment == .production, let weakness = SecretStrength.weakness(of: secret) {
                throw ConfigurationError("The session secret (MICRO_SESSION_SECRET) is too easy to guess for production: \(weakness). Anyone who guesses it can forge a session for any user. Generate a random one with: openssl rand -hex 32")
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
    /// `what` and `variable` name it in errors (another secret kept the same way: the data key).
    public static func fromFile(
        _ path: String, what: String = "development session secret", variable: String = "MICRO_SESSION_SECRET"
    ) throws(ConfigurationError) -> String {
        if FileManager.default.fileExists(atPath: path) { return try read(path, what: what) }
        let secret = randomSecret()
        // Written to a temporary file created 0600 (never readable by anyone else, not even for
        // a moment), then linked into place whole: a reader never sees half a secret, and of
        // two processes starting at once the second takes the first one's secret.
        let temporary = path + ".\(getpid())-\(UInt32.random(in: .min ... .max)).tmp"
        do throws(PrivateFileError) {
            guard let descriptor = try PrivateFile.create(temporary) else { throw PrivateFileError("a file of that name is in the way") }
            defer { close(descriptor) }
            try PrivateFile.writeAll(Array((secret + "\n").utf8), to: descriptor)
        } catch {
            unlink(temporary)
            throw ConfigurationError("\(path): cannot write the \(what) (\(error.reason)); set \(variable) or make the folder writable.")
        }
        defer { unlink(temporary) }
        if link(temporary, path) == 0 { return secret }
        if errno == EEXIST { return try read(path, what: what) }
        // A file system without hard links: renamed instead.
        guard rename(temporary, path) == 0 else {
            throw ConfigurationError("\(path): cannot write the \(what) (\(String(cString: strerror(errno)))); set \(variable) or make the folder writable.")
        }
        return secret
    }

    /// The secret an existing file holds.
    private static func read(_ path: String, what: String) throws(ConfigurationError) -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigurationError("\(path): cannot read the \(what); delete the file to have a new one made.")
        }
        let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard secret.utf8.count >= minimumBytes else {
            throw ConfigurationError("\(path):1: the \(what) is shorter than \(minimumBytes) bytes; delete the file to have a new one made.")
        }
        return secret
    }

    /// What to log at start when the secret comes from a file (development) that group or
    /// others may read: the file and `chmod 600`. Nil otherwise.
    static func startupWarning(_ settings: Settings) -> String? {
        guard settings.environment == .development, settings.sessions.store == nil, settings.sessions.secret == nil else { return nil }
        return PrivateFile.warning(for: settings.sessions.secretFile, holding: "the development session secret")
    }

    /// The test environment's secret: made once per process, so that a session survives the
    /// app being rebuilt (a route defined after the first request) and another app of the
    /// same test run can read it.
    private static let testSecret = randomSecret()

    /// A new secret of 32 random bytes, in hex.
    public static func randomSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
