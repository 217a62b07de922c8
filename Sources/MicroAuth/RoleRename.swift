import MicroCore

/// How a rename of a role across the users (``UserTableStore/renameRole(_:to:keepingOne:)``) ended.
public enum RoleRename: Sendable, Equatable {
    /// Made: how many users held the role and now hold the new one.
    case done(users: Int)
    /// Refused: the role is the admin role, which the app's checks name (renaming it would
    /// leave no user with it), or the new name is (every holder would become an admin).
    case adminRole
}
