import MicroAuth
import MicroCore

extension Request {
    /// Renames the user `username` to `newName` in the app's users table and carries what the
    /// account pages keep under the name (tokens, second factor, passkeys, links, activity)
    /// before the table lets another change in (``/MicroAuth/UserTableStore/rename(_:to:carrying:)``):
    /// the renamed user's sessions end, their API tokens go on working. A users file, which
    /// cannot be written, is a ``/MicroAuth/UserStoreError``; so is a carry that failed, after
    /// which the user keeps their old name.
    ///
    /// ```swift
    /// if try await request.renameUser("ann", to: "ann.lee") == .taken { ... }
    /// ```
    public func renameUser(_ username: String, to newName: String) async throws -> UserRename {
        try await renameUser(username, to: newName, byline: "")
    }

    /// ``renameUser(_:to:)``, its event's detail ended by `byline` (`by scim "okta"`).
    func renameUser(_ username: String, to newName: String, byline: String) async throws -> UserRename {
        guard let store = service(AuthenticationService.self)?.settings.users as? any UserTableStore else {
            throw UserStoreError("The users are not in a table (SQLite or PostgreSQL): they cannot be renamed here.")
        }
        guard let accounts else { return try await store.rename(username, to: newName) }
        let settings = accounts.settings
        let outcome: UserRename
        do {
            // Carried while the table is guarded: a user added under the old name meanwhile
            // would forget the second factor, tokens and passkeys before they moved.
            outcome = try await store.rename(username, to: newName, carrying: settings.leftoversCarry(self))
        } catch let failure as UserStoreError {
            throw failure
        } catch {
            throw UserStoreError("Cannot carry what is kept under '\(Username.key(username))' to '\(Username.key(newName))', so the user keeps the old name: \(error)")
        }
        if outcome == .done, let newKey = try? Username.enforce(newName), newKey != Username.key(username) {
            await settings.finishRename(of: Username.key(username), to: newKey, self, byline: byline)
        }
        return outcome
    }
}
