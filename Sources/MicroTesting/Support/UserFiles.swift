import Foundation
import Testing
import MicroAuth
import MicroCore

/// The credentials.yml of the Sinatra app Micro began as, exactly as its author wrote it
/// (user / secret123).
package let seedCredentials = """
    username: user
    password_hash: $2a$10$38FTKkrtpylOYomyC03Mb..Efdzu1BFa7c7bZav1FKuYJUAzosx1u # secret 123

    # Use the bcrypt gem's Password.create('password') method to generate the password hash.

    """

/// Cheap hashes (cost 4) for tests that sign in often.
package enum TestHashes {
    package static let secret123 = try! Password.hash("secret123", cost: 4)
    package static let annPassword = try! Password.hash("ann-password", cost: 4)
}

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

package extension TemporaryFolder {
    /// Writes `file` as a credentials file of several users: their names, hashes and display
    /// names (none when nil), in order.
    func writeUsers(_ file: String, _ users: [(username: String, hash: String, name: String?)]) throws {
        let entries = users.map { user in
            "  - username: \(user.username)\n    password_hash: \"\(user.hash)\"\n"
                + (user.name.map { "    name: \($0)\n" } ?? "")
        }
        try write(file, "users:\n" + entries.joined())
    }

    /// Writes `file` with one user per name, each of password "pw" hashed at its cost, and
    /// opens it.
    func yamlUsers(_ file: String = "users.yml", costs: KeyValuePairs<String, Int>) throws -> YamlUserStore {
        try writeUsers(file, try costs.map { ($0.key, try Password.hash("pw", cost: $0.value), nil) })
        return try YamlUserStore(file: self.file(file))
    }
}
