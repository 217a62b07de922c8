import MicroAuth
import MicroCore

extension Accounts {
    /// Deletes the API tokens, the listed sessions, the set-up links, what SCIM kept (the
    /// client's id, the profile, the SCIM id) and what the features keep (the second factor, the passkeys)
    /// under `username` in the account pages' tables, and marks its activity as an ended
    /// account's: after a removal, and before an add (a user removed some other way, by
    /// `remove-user` or SQL, left them), so that a new user of the name inherits none of it and
    /// sees only their own history. The users page and SCIM both remove and add users through it.
    func forgetLeftovers(of username: String, _ request: Request) async {
        do {
            try await leftoversForgetting(request)(Username.key(username))
        } catch {
            request.logger.error("Cannot delete the tokens, SCIM ids, second factor, passkeys or history left by \(username): \(error)")
        }
    }

    /// ``forgetLeftovers(of:_:)``'s work for an enforced name, to run where the caller chooses:
    /// before a rename's carry, which a failure stops.
    func leftoversForgetting(_ request: Request) -> @Sendable (String) async throws -> Void {
        let tokens = request.service(ApiTokenService.self)?.store
        let (database, features, sessions, setupLinks, activity) = (self.database, self.features, self.sessions, self.setupLinks, self.activity)
        let now = request.session.now
        return { name in
            try await tokens?.removeAll(of: name)
            if let database { for feature in features { try await feature.forget(name, in: database) } }
            _ = try await sessions.removeAll(of: name, keeping: nil)
            try await setupLinks.removeAll(of: name)
            try await activity.endAccount(of: name, at: now)
            // Last: a failure in SCIM's tables leaves the rest done.
            if let database { try await DatabaseScimStore.forget(name, in: database) }
        }
    }
}
