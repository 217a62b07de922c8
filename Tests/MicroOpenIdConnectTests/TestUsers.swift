import Micro
import Synchronization

/// A user store in memory whose users the tests add and remove. The users it is made with
/// have no password (made for single sign-on only, linked by the claim); ``addWithPassword(_:_:)``
/// adds one who has.
final class TestUsers: UserListing {
    fileprivate let users = Mutex<[String: StoredUser]>([:])

    init(_ list: [User]) {
        users.withLock { users in
            for user in list { users[user.username] = StoredUser(user: user, passwordHash: StoredUser.noPasswordHash) }
        }
    }

    func find(username: String) throws -> StoredUser? { users.withLock { $0[username] } }

    func isCurrent(_ stamp: CredentialStamp, username: String) -> Bool {
        users.withLock { $0[username].map { CredentialStamp($0) == stamp } ?? false }
    }

    func allUsers() async throws -> [User] { users.withLock { $0.values.map(\.user).sorted { $0.username < $1.username } } }

    func remove(_ username: String) { _ = users.withLock { $0.removeValue(forKey: username) } }
}

extension TestUsers {
    /// Adds (or replaces) `user`, without a password, with a stamp of their own.
    func add(_ user: User) {
        users.withLock { $0[user.username] = StoredUser(user: user, passwordHash: StoredUser.noPasswordHash) }
    }

    /// Adds (or replaces) `user` with `password` (bcrypt at the cheapest cost).
    func addWithPassword(_ user: User, _ password: String) throws {
        let hash = try Password.hash(password, cost: 4)
        users.withLock { $0[user.username] = StoredUser(user: user, passwordHash: hash) }
    }

    /// Disables `username`, as an admin does: their hash behind a `!`.
    func disable(_ username: String) {
        users.withLock { users in
            if let stored = users[username], !stored.isDisabled { users[username]?.passwordHash = "!" + stored.passwordHash }
        }
    }
}
