import MicroAuth
import MicroCore

extension Accounts {
    /// Deletes the API tokens, the listed sessions, the set-up links and what the features keep
    /// (the second factor, the passkeys) and what SCIM kept (the client's id, the profile, the
    /// SCIM id) under `username` in the account pages' tables, and
    /// marks its activity as an ended account's: after a removal, and before an add (a user
    /// removed some other way, by `remove-user` or SQL, left them), so that a new user of the
    /// name inherits none of it and sees only their own history. The users page and SCIM both
    /// remove and add users through it.
    func forgetLeftovers(of username: String, _ request: Request) async {
        let name = Username.key(username)
        do {
            try await request.service(ApiTokenService.self)?.store.removeAll(of: name)
            if let database { for feature in features { try await feature.forget(name, in: database) } }
            _ = try await sessions.removeAll(of: name, keeping: nil)
            try await setupLinks.removeAll(of: name)
            try await activity.endAccount(of: name, at: request.session.now)
            if let database { try await DatabaseScimStore.forget(name, in: database) }
        } catch {
            request.logger.error("Cannot delete the tokens, second factor, passkeys or history left by \(username): \(error)")
        }
    }
}
