import MicroCore

/// Production's refusal of a users file that still holds a published demo password: anyone
/// who read the README could sign in with it, HTTP Basic needing no cookie or form.
enum DemoPasswordCheck {
    /// The variable that allows demo users where the app does not say.
    static let variable = "MICRO_ALLOW_DEMO_USERS"

    /// The problem that stops start-up, or the warning to log when demo users are `allowed`
    /// (nil: as the variable says); nil when no user of `store` has one of `passwords` or the
    /// app is not in production. A variable that is neither `1` nor `0` is a problem whatever
    /// the store.
    static func result(_ store: YamlUserStore?, passwords: [String], allowed: Bool?, settings: Settings) -> (problem: String?, warning: String?) {
        var allowsDemoUsers = allowed ?? false
        if allowed == nil, let raw = settings.variables[variable], !raw.isEmpty {
            guard raw == "1" || raw == "0" else {
                return ("\(variable) is '\(raw)'; expected 1 (allow a published demo password in production) or 0.", nil)
            }
            allowsDemoUsers = raw == "1"
        }
        guard let store, settings.environment == .production, !passwords.isEmpty else { return (nil, nil) }
        let users = store.storedUsers
            .filter { stored in passwords.contains { Password.verify($0, against: stored.passwordHash) } }
            .map(\.user.username).sorted()
        guard let first = users.first else { return (nil, nil) }
        let named = users.count == 1 ? "the user '\(first)' has" : "the users " + users.map { "'\($0)'" }.joined(separator: ", ") + " have"
        if allowsDemoUsers {
            return (nil, "\(store.file): \(named) a published demo password, allowed by MICRO_ALLOW_DEMO_USERS=1: anyone who knows it can sign in.")
        }
        return (
            "\(store.file): \(named) a published demo password, refused in production: put the hash of a real password there (\(OperatorCommand.hashPassword()) prints one), or set MICRO_ALLOW_DEMO_USERS=1 for a deliberate demo.",
            nil
        )
    }
}
