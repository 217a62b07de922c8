import Micro
import Synchronization

/// A user store in memory whose users the tests add and remove.
final class TestUsers: UserStore {
    fileprivate let users = Mutex<[String: StoredUser]>([:])

    init(_ list: [User]) {
        users.withLock { users in
            for user in list { users[user.username] = StoredUser(user: user, passwordHash: "$2b$04$not.a.real.hash.for.\(user.username)") }
        }
    }

    func find(username: String) throws -> StoredUser? { users.withLock { $0[username] } }

    func isCurrent(_ stamp: CredentialStamp, username: String) -> Bool {
        users.withLock { $0[username].map { CredentialStamp($0) == stamp } ?? false }
    }

    func remove(_ username: String) { _ = users.withLock { $0.removeValue(forKey: username) } }
}

extension TestUsers {
    /// Adds (or replaces) `user`, with a hash of their own.
    func add(_ user: User) {
        users.withLock { $0[user.username] = StoredUser(user: user, passwordHash: "$2b$04$another.hash.for.\(user.username)") }
    }
}
