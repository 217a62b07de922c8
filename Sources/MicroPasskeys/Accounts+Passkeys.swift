import MicroAccounts

extension Accounts {
    /// Passkeys: the page under `/account/passkeys` and the sign-in by passkey, with the
    /// account pages' database. Read, it is the feature's settings (the defaults while the
    /// pages lack it); set, it puts the feature among ``/MicroAccounts/Accounts/features``.
    public var passkeys: PasskeySettings {
        get { feature(PasskeySettings.self) ?? PasskeySettings() }
        set { setFeature(newValue) }
    }
}
