import MicroCore

/// How a rename of a user (``UserTableStore/rename(_:to:)``) ended.
public enum UserRename: Sendable, Equatable {
    /// Made; or the new name is the user's own in another case (`Alice` for `alice`), which
    /// changes nothing, since names are kept in their enforced form.
    case done
    /// There is no such user.
    case noSuchUser
    /// Refused: another user has the new name.
    case taken
    /// Refused: the new name is outside the rule for usernames, or looks like another user's
    /// (Unicode's confusables); the reason, in words.
    case refused(String)
}
