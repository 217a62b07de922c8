import MicroCore

extension Request {
    /// The stored user `username` names, when the person at this browser proves to be them:
    /// their password, checked as the sign-in form checks it (the same limits, throttle and
    /// timing; a wrong one is the user's failed sign-in), and where a further step is due for
    /// them (a second factor), `code` as its answer (a code is taken once). Nil for a wrong
    /// password or code; a 429 while the name or the client is throttled. Signs nobody in and
    /// leaves the session as it was.
    ///
    /// For a step that must know it is the account's owner before it acts for them, such as
    /// a single sign-on linking a provider's account to a user here.
    public func proveAccount(username: String, password: String, code: String) async throws -> StoredUser? {
        guard case .proven(let stored) = try await checkAccountProof(username: username, password: password, code: code) else { return nil }
        return stored
    }

    /// ``proveAccount(username:password:code:)``, saying which answer was wrong: for a form
    /// that names the field to type again (the users page's "sudo mode", a passkey's addition).
    public func checkAccountProof(username: String, password: String, code: String) async throws -> AccountProof {
        guard let stored = try await checkCredentials(username: username, password: password) else { return .wrongPassword }
        guard let step = storage[SignInStepDue.self] else { return .proven(stored) }
        storage[SignInStepDue.self] = nil
        return try await step.prove(self, username: stored.user.username, answer: code) ? .proven(stored) : .wrongCode
    }

    /// Whether the app has a further sign-in step for anyone (a second factor): a page that
    /// asks someone not yet proven for a proof offers the code's field whenever this is true,
    /// so that it does not tell them whether this user has turned a second factor on.
    public var offersSecondStep: Bool { signInHooks.step != nil }

    /// The app's further sign-in step (a second factor), if it has one: for a plugin that asks
    /// whether it is due for a user, or words a refused answer as the step does.
    public var signInStep: (any SignInStep)? { signInHooks.step }

    /// Whether ``proveAccount(username:password:code:)`` asks a code of `username` besides
    /// their password: a further step of the sign-in (a second factor) is due for them.
    public func needsCode(toProve username: String) async throws -> Bool {
        guard let step = signInHooks.step else { return false }
        return try await step.isDue(for: username)
    }
}
