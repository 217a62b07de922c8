import MicroAuth
import MicroCore

extension Accounts {
    /// What carries the account pages' rows of a user the users store renames
    /// (``/MicroAuth/UserTableStore/rename(_:to:carrying:)``), given the old and the new
    /// enforced name: forgets what an earlier holder of the new name left
    /// (``forgetLeftovers(of:_:)``), then moves the API tokens (which work under the new name),
    /// set-up links, activity, the features' rows (second factor, passkeys), what SCIM kept and
    /// what other modules registered (``/MicroCore/App/onUserRenamed(_:_:)``: identity links),
    /// in one transaction where they share a database. A carry that fails is rolled back and
    /// thrown: the store gives the user their old name back, since a renamed user whose second
    /// factor stayed under the old name would sign in with their password alone.
    func leftoversCarry(_ request: Request) -> @Sendable (String, String) async throws -> Void {
        let forget = leftoversForgetting(request)
        let tokens = request.service(ApiTokenService.self)?.store
        let renames = request.service(AccountRenames.self)?.list ?? []
        let (setupLinks, activity, features, database, logger) = (self.setupLinks, self.activity, self.features, self.database, request.logger)
        return { old, new in
            // Before the transaction, whose work cannot make the features' tables: the earlier
            // holder is gone, so what they left goes whether or not the carry stands.
            try await forget(new)
            let carry: @Sendable () async throws -> Void = {
                try await tokens?.rename(old, to: new)
                try await setupLinks.rename(old, to: new)
                try await activity.rename(old, to: new)
                if let database {
                    try await DatabaseScimStore.carry(old, to: new, in: database)
                    for feature in features { try await feature.carry(old, to: new, in: database) }
                }
                for renaming in renames { try await renaming.run(old, new) }
            }
            do {
                if let database { try await database.transaction { _ in try await carry() } } else { try await carry() }
            } catch {
                logger.error("Cannot carry the tokens, second factor, passkeys, links or history of \(old) to \(new): \(error)")
                throw error
            }
        }
    }

    /// What follows a rename once it and its carry stood: every session of the old name ends,
    /// on every instance (the cookie names the old user), and ``ActivityEvent/Kind/renamed`` is
    /// recorded; `byline` (`by scim "okta"`) ends its detail: who renamed them.
    func finishRename(of old: String, to new: String, _ request: Request, byline: String = "") async {
        await request.endSessions(of: old)
        await request.recordAccountEvent(ActivityEvent.Kind.renamed, of: new, detail: "from \(old)" + (byline.isEmpty ? "" : " " + byline))
    }
}
