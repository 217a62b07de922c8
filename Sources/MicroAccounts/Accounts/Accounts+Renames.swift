import MicroAuth
import MicroCore

extension Accounts {
    /// Carries what the account pages keep under `username` to `newName`, after the users
    /// store renamed the user (``/MicroAuth/UserTableStore/rename(_:to:)``): first forgets what an
    /// earlier holder of `newName` left (``forgetLeftovers(of:_:)``), then moves the API tokens
    /// (which work under the new name), set-up links, activity, the features' rows (second
    /// factor, passkeys), SCIM's external id and what other modules registered
    /// (``/MicroCore/App/onUserRenamed(_:_:)``: identity links), in one transaction where they
    /// share a database, and records ``ActivityEvent/Kind/renamed``. Every session of the old
    /// name ends, on every instance: the cookie names the old user. A carry that fails is
    /// rolled back and thrown: the caller renames the user back, since a renamed user whose
    /// second factor stayed under the old name would sign in with their password alone.
    /// `byline` (`by scim "okta"`) ends the event's detail: who renamed them.
    func carryLeftovers(of username: String, to newName: String, _ request: Request, byline: String = "") async throws {
        let old = Username.key(username)
        let new = Username.key(newName)
        guard old != new else { return }
        await forgetLeftovers(of: new, request)
        let tokens = request.service(ApiTokenService.self)?.store
        let renames = request.service(AccountRenames.self)?.list ?? []
        let (setupLinks, activity, features, database) = (self.setupLinks, self.activity, self.features, self.database)
        let carry: @Sendable () async throws -> Void = {
            try await tokens?.rename(old, to: new)
            try await setupLinks.rename(old, to: new)
            try await activity.rename(old, to: new)
            if let database {
                try await DatabaseScimStore.carry(old, to: new, in: database)
                for feature in features { try await feature.carry(old, to: new, in: database) }
            }
            for renaming in renames { try await renaming.carry(old, new) }
        }
        do {
            if let database { try await database.transaction { _ in try await carry() } } else { try await carry() }
        } catch {
            request.logger.error("Cannot carry the tokens, second factor, passkeys, links or history of \(old) to \(new): \(error)")
            throw error
        }
        await request.endSessions(of: old)
        await request.recordAccountEvent(ActivityEvent.Kind.renamed, of: new, detail: "from \(old)" + (byline.isEmpty ? "" : " " + byline))
    }
}
