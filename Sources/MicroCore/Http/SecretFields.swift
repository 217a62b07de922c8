/// The form fields whose values are never shown back or carried: passwords, passphrases,
/// secrets, tokens and the CSRF field. A refused sign-up shows the name again, never the
/// password; the browser's password manager fills that one again, and a page or a session
/// cookie that holds it is one more place it can leak from.
enum SecretFields {
    /// The words a secret field's name contains, in lowercase.
    private static let words = ["password", "passwd", "passphrase", "secret", "token", "csrf"]

    /// Whether the field `name` (`password`, `new_password`, `user[password]`) holds a secret.
    static func contains(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return words.contains { lowered.contains($0) }
    }
}
