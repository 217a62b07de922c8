/// What turning two-factor sign-in on gave a test (``TestClient/turnOnTwoFactor(password:path:code:)``).
public struct TwoFactorSetup: Sendable {
    /// The secret, in Base32 as the setup page shows it: `Base32.decode` gives the bytes a
    /// `Totp` takes.
    public let secret: String
    /// The recovery codes, each good for one sign-in.
    public let recoveryCodes: [String]
}
