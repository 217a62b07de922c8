/// Where the key that seals data at rest comes from (``DataKey``).
public struct DataKeySettings: Sendable {
    /// The key material (at least 32 bytes; `openssl rand -hex 32` makes one); `MICRO_DATA_KEY`
    /// sets it. Production has no key without it; development keeps a generated one in
    /// ``file``; tests use a random one per process.
    public var material: String?
    /// Where development keeps its generated key; nil for `.micro-data-key` beside the session
    /// secret's file (``SessionSettings/secretFile``). Keep it out of version control (Micro's
    /// `.gitignore` does).
    public var file: String?

    /// The defaults.
    public init() {}
}
