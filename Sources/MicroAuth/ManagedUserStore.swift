import MicroCore

/// A user store an admin can change from a page (`Accounts`' users page): add users, set
/// their passwords and roles, disable, enable and remove them. ``SqliteUserStore`` is one, and
/// so is MicroPostgres' `PostgresUserStore`; credentials.yml is not (it is edited by hand).
///
/// A change that could leave nobody with the admin role able to sign in (removing, disabling
/// or demoting the last enabled admin) is refused by the store in the very statement or
/// transaction that makes it, never by a look first and a write after: two admins demoting
/// each other at once cannot both succeed.
///
/// A disabled user keeps their row and their hash, behind a `!` (``StoredUser/isDisabled``).
public protocol ManagedUserStore: UserListing {
    /// Every user with whether they are disabled, ordered by username; never a hash.
    func managedUsers() async throws -> [ManagedUser]
    /// Adds the user (enabled); false when one of that name, in any spelling, or of that
    /// address, in any case, exists. The name must already be in its enforced form
    /// (``Username/enforce(_:)``), the address one ``User/checkedEmail(_:)`` gives.
    /// `passwordChangeDue` marks a password the user did not choose (``StoredUser/passwordChangeDue``).
    func addUser(username: String, name: String?, roles: [String], email: String?, passwordHash: String, passwordChangeDue: Bool) async throws -> Bool
    /// Gives the user a new hash, keeping them disabled if they are, marked as to be changed
    /// or not; false when there is no such user. Their sessions end (their ``CredentialStamp`` changes).
    func setPasswordHash(of username: String, to passwordHash: String, changeDue: Bool) async throws -> Bool
    /// Replaces the hash of the user's own change, when it is still `old`, and clears the mark
    /// of a password set by someone else; whether it did.
    func replaceOwnPasswordHash(of username: String, _ old: String, with new: String) async throws -> Bool
    /// Gives the user the address `email` (nil: none), unless another user has it.
    func setEmail(of username: String, to email: String?) async throws -> EmailChange
    /// Gives the user `roles`, unless that takes `adminRole` from the last enabled user who has it.
    func setRoles(of username: String, to roles: [String], keepingOne adminRole: String) async throws -> UserChange
    /// Disables the user (unless they are the last enabled one with `adminRole`) or enables them.
    func setDisabled(_ disabled: Bool, username: String, keepingOne adminRole: String) async throws -> UserChange
    /// Removes the user, unless they are the last enabled one with `adminRole`.
    func removeUser(username: String, keepingOne adminRole: String) async throws -> UserChange
}

extension ManagedUserStore {
    /// Adds the user without an address, with a password they chose.
    public func addUser(username: String, name: String?, roles: [String], passwordHash: String) async throws -> Bool {
        try await addUser(username: username, name: name, roles: roles, email: nil, passwordHash: passwordHash, passwordChangeDue: false)
    }

    /// Gives the user a hash of a password they chose.
    public func setPasswordHash(of username: String, to passwordHash: String) async throws -> Bool {
        try await setPasswordHash(of: username, to: passwordHash, changeDue: false)
    }
}
