import MicroAccounts
import MicroCore

extension OperatorCommand {
    /// What turns a user's second factor off: the tool's `reset-two-factor`, else the users page.
    static var resetTwoFactor: String {
        phrase("reset-two-factor", "NAME", otherwise: "an admin on the users page, or Micro's `reset-two-factor` command (MicroCommands)")
    }
}
