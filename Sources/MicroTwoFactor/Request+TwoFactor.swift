import MicroAuth
import MicroCore

extension Request {
    /// The second factor's service, when the app's account pages have one.
    var twoFactor: TwoFactorService? { service(TwoFactorService.self) }

    /// The password of `stored` was right and a code is due: the pending step goes into the
    /// session (no one is signed in yet; the remembered page stays) and the browser to the
    /// code's page.
    func beginSecondFactor(_ stored: StoredUser) throws -> Never {
        try redirect(to: try pendSecondFactor(stored))
    }

    /// Puts the pending step of `stored`, after `first`, into the session, as
    /// ``beginSecondFactor(_:)`` does, and gives the code page's path, for a script to go to.
    func pendSecondFactor(_ stored: StoredUser, first: PendingSecondFactor.FirstFactor = .password) throws -> String {
        guard let twoFactor else { throw ConfigurationError("A second factor is due without the account pages' two-factor service.") }
        try session.set(
            PendingSecondFactor.key, PendingSecondFactor(user: stored.user.username, at: session.now, stamp: CredentialStamp(stored).text, first: first))
        return twoFactor.settings.signInPath
    }

    /// The sign-in waiting for its second step in this session, as kept (see
    /// ``userAtSecondStep()`` for the user it is for, checked).
    var pendingSecondFactor: PendingSecondFactor? { session.get(PendingSecondFactor.key, as: PendingSecondFactor.self) }

    /// The user waiting at the second step of their sign-in, as the store holds them now; nil
    /// when none waits or the wait expired. A password changed since the first step, or a user
    /// removed, ends the wait too. Each of these drops the pending step. For another answer
    /// the step takes (a passkey: ``SecondStepAlternative``).
    public func userAtSecondStep() async throws -> StoredUser? {
        guard let twoFactor, let pending = pendingSecondFactor else { return nil }
        let age = session.now - pending.at
        guard age >= 0, age < twoFactor.settings.stepLifetime.components.seconds, let authentication = authenticationSettings else {
            session.remove(PendingSecondFactor.key)
            return nil
        }
        let stored = try await authentication.users.find(username: pending.user, using: authentication.hasher)
        guard let stored, let signIns = service(AuthenticationService.self),
            signIns.stands(CredentialStamp(text: pending.stamp), as: CredentialStamp(stored), username: stored.user.username)
        else {
            session.remove(PendingSecondFactor.key)
            return nil
        }
        return stored
    }

    /// Whether `code` is right for `username`, checked as a password is: the same throttle
    /// (a wrong code is a failed sign-in of the user; over the limit a 429, right code or not).
    /// A right code clears the user's failures.
    func checkSecondFactor(_ code: String, of username: String) async throws -> SecondFactorCheck {
        guard service(AuthenticationService.self) != nil, let twoFactor else { return .wrong }
        let now = Int64(settings.clock().timeIntervalSince1970)
        return try await signInAttempt(username: username) { attempt in
            attempt.failedUser = username
            attempt.outcome = .unchecked  // until the code is checked: a secret that will not open is no failure of the user's
            let check = try await twoFactor.verify(String(code.prefix(64)), of: username, now: now)
            attempt.outcome = check.method == nil ? .failure : .success
            return check
        }
    }
}
