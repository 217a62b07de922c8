import MicroAuth
import MicroCore

/// The account pages hear the sign-in flow's moments: the audit, the session registry and the
/// admin proof that a single sign-on brings.
extension AccountsService: SignInListener {}
