import MicroAuth
import MicroCore

extension Request {
    /// Renames the user `username` to `newName` in the app's users table
    /// (``/MicroAuth/UserTableStore/rename(_:to:)``) and, when it was done, carries what the
    /// account pages keep under the name (tokens, second factor, passkeys, links, activity):
    /// the renamed user's sessions end, their API tokens go on working. A users file, which
    /// cannot be written, is a ``/MicroAuth/UserStoreError``; so is a carry that failed, after
    /// which the user is renamed back.
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
        let outcome = try await store.rename(username, to: newName)
        guard outcome == .done, let accounts else { return outcome }
        do {
            try await accounts.settings.carryLeftovers(of: username, to: newName, self, byline: byline)
        } catch {
            // Fail closed: the user goes back to the name their second factor, tokens and
            // passkeys are still kept under, rather than standing renamed without them.
            let back = try? await store.rename(newName, to: username)
            throw UserStoreError(
                "Cannot carry what is kept under '\(Username.key(username))' to '\(Username.key(newName))'"
                    + (back == .done ? ", so the user keeps the old name" : ", and the user could not be given the old name back") + ": \(error)")
        }
        return outcome
    }
}
