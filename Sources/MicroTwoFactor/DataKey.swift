import Crypto
import Foundation
import MicroAuth
import MicroCore

/// The key that seals what the database must not hold in the clear (two-factor secrets), kept
/// apart from the database: a database copied or dumped does not open them.
///
/// Its material is `MICRO_DATA_KEY` (``TwoFactorSettings/dataKey``), at least 32 bytes, held to the
/// session secret's rules in production; in development a generated one kept in a private file
/// beside the session secret; in tests a random one per process. Production without it has no
/// key: two-factor cannot be turned on, and start-up is refused once a user has it on.
///
/// It also keys the recovery codes' digests (`RecoveryCodes`): a dump opens neither. Losing or
/// changing it makes every sealed secret unreadable: the database keeps a check value of it
/// (`DataKeyCheck`), so production refuses to start with another key while secrets are sealed
/// under the old one, until the key is set back or their users' two-factor is reset
/// (the `reset-two-factor` command, or the users page).
public struct DataKey: Sendable {
    let key: SymmetricKey

    /// The key derived from `material` (HKDF-SHA256: any text of enough entropy makes a key of
    /// 256 bits).
    public init(material: String) {
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(material.utf8)), info: Data("micro data key 1".utf8), outputByteCount: 32)
    }

    /// `plain` sealed with AES-GCM, bound to `context` (what it is and whose): sealed text moved
    /// to another user's row or another use does not open. Base64 of nonce, text and tag.
    func seal(_ plain: [UInt8], context: String) throws -> String {
        let box = try AES.GCM.seal(plain, using: key, authenticating: Data(context.utf8))
        return box.combined!.base64EncodedString()
    }

    /// What ``seal(_:context:)`` sealed under `context`; nil when it does not open (another key,
    /// another context, altered).
    func open(_ sealed: String, context: String) -> [UInt8]? {
        guard sealed.utf8.count <= 4096, let data = Data(base64Encoded: sealed), let box = try? AES.GCM.SealedBox(combined: data),
            let plain = try? AES.GCM.open(box, using: key, authenticating: Data(context.utf8))
        else { return nil }
        return Array(plain)
    }

    /// The app's key: the setting, the development file, the test key; nil in production
    /// without one. Throws for material that is too short, or guessable in production.
    static func resolve(_ settings: Settings, _ own: DataKeySettings) throws(ConfigurationError) -> DataKey? {
        if let material = own.material(in: settings) {
            if let problem = problem(with: material, environment: settings.environment) { throw ConfigurationError(problem) }
            return DataKey(material: material)
        }
        switch settings.environment {
        case .production: return nil
        case .test: return testKey
        case .development:
            return DataKey(material: try SessionSecret.fromFile(developmentFile(settings, own), what: "development data key", variable: "MICRO_DATA_KEY"))
        }
    }

    /// The file the development key is kept in: beside the session secret's, unless set.
    static func developmentFile(_ settings: Settings, _ own: DataKeySettings) -> String {
        own.file ?? URL(fileURLWithPath: settings.sessions.secretFile).deletingLastPathComponent()
            .appendingPathComponent(".micro-data-key").path
    }

    /// What to log at start when the key comes from its development file and group or others
    /// may read that file: the file and `chmod 600`. Nil otherwise.
    static func startupWarning(_ settings: Settings, _ own: DataKeySettings) -> String? {
        guard settings.environment == .development, own.material(in: settings) == nil else { return nil }
        return PrivateFile.warning(for: developmentFile(settings, own), holding: "the development data key")
    }

    /// What is wrong with `material` as a key, as a start-up error naming the variable.
    static func problem(with material: String, environment: Environment) -> String? {
        guard material.utf8.count >= SessionSecret.minimumBytes else {
            return "The data key (MICRO_DATA_KEY) is \(material.utf8.count) bytes; it must be at least \(SessionSecret.minimumBytes). Generate one with: openssl rand -hex 32"
        }
        if environment == .production, let weakness = SecretStrength.weakness(of: material) {
            return "The data key (MICRO_DATA_KEY) is too easy to guess for production: \(weakness). Generate a random one with: openssl rand -hex 32"
        }
        return nil
    }

    /// The test environment's key: one per process, so that two apps of one test run share it.
    private static let testKey = DataKey(material: SessionSecret.randomSecret())
}
