import MicroAuth
import MicroCore

extension Request {
    /// The second factor's service, when the app's account pages have one.
    var twoFactor: TwoFactorService? { services.service(TwoFactorService.self) }

    /// The password of `stored` was right and a code is due: the pending step goes into the
    /// session (no one is signed in yet; the remembered page stays) and the browser to the
    /// code's page.
    func beginSecondFactor(_ stored: StoredUser) throws -> Never {
        guard let twoFactor else { throw ConfigurationError("A second factor is due without the account pages' two-factor service.") }
        try session.set(PendingSecondFactor.key, PendingSecondFactor(user: stored.user.username, at: session.now, stamp: CredentialStamp(stored).text))
        try redirect(to: twoFactor.settings.signInPath)
    }

    /// Whether `code` is right for `username`, checked as a password is: the same throttle
    /// (a wrong code is a failed sign-in of the user; over the limit a 429, right code or not).
    /// A right code clears the user's failures.
    func checkSecondFactor(_ code: String, of username: String) async throws -> SecondFactorCheck {
        guard let service = services.service(AuthenticationService.self), let twoFactor else { return .wrong }
        let throttle = service.throttle
        let now = Int64(settings.clock().timeIntervalSince1970)
        let name = Username.key(username)
        let key = throttle.key(username: name)
        let address = clientAddress.map(throttle.key(address:))
        try await service.adoptSharedFailures(username: key, address: address, now: now, logger: logger)
        do {
            try await admit(username: key, address: address, service)
        } catch let error as HttpError where error.status == .tooManyRequests {
            await announce { await $0.lockedOut(self, name: name, authentication: service.settings) }
            throw error
        }
        let check: SecondFactorCheck
        do {
            check = try await twoFactor.verify(String(code.prefix(64)), of: username, now: now)
        } catch {
            await service.finish(username: key, address: address, outcome: .unchecked, now: now, logger: logger)
            throw error
        }
        await service.finish(username: key, address: address, outcome: check.method == nil ? .failure : .success, now: now, logger: logger)
        if check.method == nil { await announce { await $0.signInFailed(self, username: username) } }
        return check
    }
}
