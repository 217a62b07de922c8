import MicroCore

extension OperatorCommand {
    /// What makes a bcrypt hash for a users file: the tool's `hash-password`, else `htpasswd`
    /// (Debian's apache2-utils), at `cost` when given.
    public static func hashPassword(cost: Int? = nil) -> String {
        phrase(
            "hash-password", cost.map { "--cost \($0)" } ?? "",
            otherwise: "`htpasswd -nbBC \(cost ?? 12) \"\" 'PASSWORD' | tr -d ':\\n'`")
    }
}
