import MicroAccounts
import MicroAuth
import MicroCore

/// The second factor as the sign-in flow's further step: due for a user who has it on.
extension TwoFactorService: SignInStep {
    func isDue(for username: String) async throws -> Bool {
        guard store != nil else { return false }
        return try await isOn(username)
    }

    func begin(_ request: Request, _ stored: StoredUser) throws -> Never {
        try request.beginSecondFactor(stored)
    }

    func isNew(for username: String, since time: Int64) -> Bool {
        turnedOn(username, since: time)
    }

    var basicRefusal: HttpError { Self.basicRefusal }

    var wrongAnswerMessage: String { settings.wrongCodeMessage }

    /// A code or a recovery code, checked as the code's page checks it; a recovery code spent
    /// is recorded in the user's activity.
    func prove(_ request: Request, username: String, answer: String) async throws -> Bool {
        guard let method = try await request.checkSecondFactor(answer, of: username).method else { return false }
        if method == .recoveryCode {
            await request.recordAccountEvent(ActivityEvent.Kind.recoveryCodeUsed, of: username, detail: "")
        }
        return true
    }
}
