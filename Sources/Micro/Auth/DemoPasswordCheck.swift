/// Production's refusal of a users file that still holds a published demo password: anyone
/// who read the README could sign in with it, HTTP Basic needing no cookie or form.
enum DemoPasswordCheck {
    /// The problem that stops start-up, or the warning to log when `settings` allow demo users;
    /// nil when no user of `store` has one of `passwords` or the app is not in production.
    static func result(_ store: YamlUserStore, passwords: [String], settings: Settings) -> (problem: String?, warning: String?) {
        guard settings.environment == .production, !passwords.isEmpty else { return (nil, nil) }
        let users = store.storedUsers
            .filter { stored in passwords.contains { Password.verify($0, against: stored.passwordHash) } }
            .map(\.user.username).sorted()
        guard let first = users.first else { return (nil, nil) }
        let named = users.count == 1 ? "the user '\(first)' has" : "the users " + users.map { "'\($0)'" }.joined(separator: ", ") + " have"
        if settings.allowsDemoUsers {
            return (nil, "\(store.file): \(named) a published demo password, allowed by MICRO_ALLOW_DEMO_USERS=1: anyone who knows it can sign in.")
        }
        return (
            "\(store.file): \(named) a published demo password, refused in production: put the hash of a real password there (`SampleApp hash-password` prints one), or set MICRO_ALLOW_DEMO_USERS=1 for a deliberate demo.",
            nil
        )
    }
}
