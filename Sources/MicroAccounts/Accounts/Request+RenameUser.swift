import MicroAuth
import MicroCore

extension Request {
    /// Renames the user `username` to `newName` in the app's users table
    /// (``/MicroAuth/UserTableStore/rename(_:to:)``) and, when it was done, carries what the
    /// account pages keep under the name (tokens, second factor, passkeys, links, activity):
    /// the renamed user's sessions end, their API tokens go on working. A users file, which
    /// cannot be written, is a ``/MicroAuth/UserStoreError``.
    ///
    /// ```swift
    /// if try await request.renameUser("ann", to: "ann.lee") == .taken { ... }
    /// ```
    public func renameUser(_ username: String, to newName: String) async throws -> UserRename {
        guard let store = service(AuthenticationService.self)?.settings.users as? any UserTableStore else {
            throw UserStoreError("The users are not in a table (SQLite or PostgreSQL): they cannot be renamed here.")
        }
        let outcome = try await store.rename(username, to: newName)
        if outcome == .done, let accounts { await accounts.settings.carryLeftovers(of: username, to: newName, self) }
        return outcome
    }
}
