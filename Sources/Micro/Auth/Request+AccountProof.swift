extension Request {
    /// The stored user `username` names, when the person at this browser proves to be them:
    /// their password, checked as the sign-in form checks it (the same limits, throttle and
    /// timing; a wrong one is the user's failed sign-in), and where their second factor is on,
    /// `code` too (a code is taken once). Nil for a wrong password or code; a 429 while the
    /// name or the client is throttled. Signs nobody in and leaves the session as it was.
    ///
    /// For a step that must know it is the account's owner before it acts for them, such as
    /// a single sign-on linking a provider's account to a user here.
    public func proveAccount(username: String, password: String, code: String) async throws -> StoredUser? {
        guard let stored = try await checkCredentials(username: username, password: password) else { return nil }
        guard storage[SecondFactorDue.self] != nil else { return stored }
        storage[SecondFactorDue.self] = nil
        guard let method = try await checkSecondFactor(code, of: stored.user.username) else { return nil }
        if method == .recoveryCode {
            await accounts?.record(self, username: stored.user.username, event: ActivityEvent.Kind.recoveryCodeUsed, detail: "")
        }
        return stored
    }

    /// Whether `username` has a second factor on: ``proveAccount(username:password:code:)``
    /// then asks for its code.
    public func hasSecondFactor(_ username: String) async throws -> Bool {
        guard let twoFactor, twoFactor.store != nil else { return false }
        return try await twoFactor.isOn(Username.key(username))
    }
}
