import MicroAccounts
import MicroAuth
import MicroCore

extension ActivityEvent.Kind {
    /// A user turned two-factor sign-in on.
    public static let twoFactorEnabled = "two_factor_enabled"
    /// Two-factor sign-in was turned off (by the user, or reset by an admin).
    public static let twoFactorDisabled = "two_factor_disabled"
    /// A user replaced their recovery codes.
    public static let recoveryCodesRegenerated = "recovery_codes_regenerated"
    /// A recovery code was spent on a sign-in.
    public static let recoveryCodeUsed = "recovery_code_used"
}
