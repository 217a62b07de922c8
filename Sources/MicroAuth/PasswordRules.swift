import MicroCore

/// What a new password must be (NIST SP 800-63B): long enough, within bcrypt's 72 bytes, not
/// the username, not one of the most common passwords, not a published demo one. No rules on
/// character classes: NIST advises against them.
///
/// ```swift
/// if let problem = PasswordRules().problem(with: newPassword, username: user.username) {
///     // "Choose a password of at least 8 characters."
/// }
/// ```
public struct PasswordRules: Sendable {
    /// The fewest characters a password may have.
    public var minimumLength = 8
    /// Whether the 10,000 most common passwords are refused.
    public var refusesCommonPasswords = true
    /// Passwords refused besides those: published ones (a README's demo password).
    public var refused: [String] = ["secret123"]

    /// The rules NIST recommends.
    public init() {}

    /// Why `password` cannot be `username`'s new password, in words for the person choosing
    /// it; nil when it can.
    public func problem(with password: String, username: String) -> String? {
        if password.count < minimumLength {
            return "Choose a password of at least \(minimumLength) characters."
        }
        if password.utf8.count > Password.maximumLength {
            return "Choose a password of at most \(Password.maximumLength) bytes (bcrypt reads no further); this one has \(password.utf8.count)."
        }
        let lowered = password.lowercased()
        if lowered == username.lowercased() {
            return "Choose a password other than your username."
        }
        if refused.contains(where: { $0.lowercased() == lowered }) {
            return "That password is published (a demo password): choose another."
        }
        if refusesCommonPasswords, Self.common.contains(Substring(lowered)) {
            return "That password is one of the most commonly used ones: choose another."
        }
        return nil
    }

    /// The list, read once.
    static let common: Set<Substring> = Set(CommonPasswordList.text.split(separator: "\n"))
}
