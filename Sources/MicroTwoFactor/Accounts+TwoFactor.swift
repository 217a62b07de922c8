import MicroAccounts

extension Accounts {
    /// Two-factor sign-in (TOTP and recovery codes), where users are in a table and the
    /// account pages keep their state in a database: its issuer, whether it is required, its
    /// texts. Read, it is the feature's settings (the defaults while the pages lack it); set,
    /// it puts the feature among ``/MicroAccounts/Accounts/features``.
    public var twoFactor: TwoFactorSettings {
        get { feature(TwoFactorSettings.self) ?? TwoFactorSettings() }
        set { setFeature(newValue) }
    }
}
