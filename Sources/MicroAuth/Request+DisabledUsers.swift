import MicroCore

extension Request {
    /// Throws a `403` when the app's user store holds `username` disabled: a way of signing in
    /// beside the password (``ExternalSignIn``, a token) admits nobody an admin disabled, even
    /// when it made the user's stamp itself.
    public func refuseDisabledUser(_ username: String) async throws {
        guard let settings = authenticationSettings,
            let stored = try await settings.users.find(username: username, using: settings.hasher), stored.isDisabled
        else { return }
        throw HttpError(.forbidden, "This account is disabled. Ask an administrator.")
    }
}
