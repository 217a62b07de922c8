import MicroAuth
import MicroCore

/// Where the key that seals data at rest comes from (``DataKey``; ``TwoFactorSettings/dataKey``).
public struct DataKeySettings: Sendable {
    /// The variable the material comes from where ``material`` is nil.
    static let variable = "MICRO_DATA_KEY"

    /// The key material (at least 32 bytes; `openssl rand -hex 32` makes one); nil, the
    /// default, reads `MICRO_DATA_KEY` from ``/MicroCore/Settings/variables``. Production has no key
    /// without either; development keeps a generated one in ``file``; tests use a random one
    /// per process.
    public var material: String?
    /// Where development keeps its generated key; nil for `.micro-data-key` beside the session
    /// secret's file (``/MicroCore/SessionSettings/secretFile``). Keep it out of version control (Micro's
    /// `.gitignore` does).
    public var file: String?

    /// The defaults.
    public init() {}

    /// The material: the setting's, else the variable's in `settings`; nil for neither.
    func material(in settings: Settings) -> String? {
        if let material { return material }
        guard let variable = settings.variables[Self.variable], !variable.isEmpty else { return nil }
        return variable
    }
}
