import MicroAuth
import MicroCore
import Testing

/// The two kinds of user store, holding the same users: `user` / secret123 (no name) and
/// `Ann` / ann-password (name "Ann Smith").
package enum UserStoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case yaml, sqlite

    package var testDescription: String { rawValue }

    /// ``Authentication`` over this kind's store in `folder`, with one hasher thread (tests
    /// run side by side).
    package func authentication(in folder: TemporaryFolder) throws -> Authentication {
        var authentication = Authentication(users: try make(in: folder))
        authentication.hasher = PasswordHasher(threads: 1)
        return authentication
    }

    package func make(in folder: TemporaryFolder) throws -> any UserStore {
        switch self {
        case .yaml:
            try folder.writeUsers("credentials.yml", [
                ("user", TestHashes.secret123, nil), ("Ann", TestHashes.annPassword, "Ann Smith"),
            ])
            return try YamlUserStore(file: folder.file("credentials.yml"))
        case .sqlite:
            let store = try SqliteUserStore(path: folder.file("users.db"), create: true)
            try store.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
            try store.save(username: "Ann", passwordHash: TestHashes.annPassword, name: "Ann Smith")
            return store
        }
    }
}
