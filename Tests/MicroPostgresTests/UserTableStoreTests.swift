import Foundation
import Micro
import MicroPostgres
import Testing

/// The users table's statements, written once (`UserTable`), behave alike in SQLite and
/// PostgreSQL: one test body for both stores.
@Suite struct UserTableStoreTests {
    /// Runs `body` with a new, empty users store of `kind`.
    private func withStore(_ kind: TestDatabaseKind, _ body: (any UserTableStore & PasswordUpgradingUserStore) async throws -> Void) async throws {
        switch kind {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-users-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try await body(try SqliteUserStore(path: folder.appendingPathComponent("users.db").path, create: true))
        case .postgres:
            try await PostgresTestDatabase.withShared(1) { shared in
                try await body(try await PostgresUserStore(shared[0]))
            }
        }
    }

    @Test(arguments: TestDatabaseKind.available)
    func theAdminsChangesKeepAnAdminAndTheStampsFollow(_ kind: TestDatabaseKind) async throws {
        try await withStore(kind) { store async throws in
            #expect(try await store.addUser(username: "Ann", name: "Ann Smith", roles: ["admin"], passwordHash: TestHashes.ann))
            // One user whatever the case: the name is enforced, the row matched alike.
            #expect(try await store.addUser(username: "ANN", name: nil, roles: [], passwordHash: TestHashes.user) == false)
            let ann = try #require(try await store.find(username: "aNN", using: PasswordHasher.shared))
            #expect(ann.user == User(username: "ann", name: "Ann Smith", roles: ["admin"]))
            #expect(store.isCurrent(CredentialStamp(ann), username: "ann"))

            // The last enabled admin stays.
            #expect(try await store.setDisabled(true, username: "ann", keepingOne: "admin") == .lastAdmin)
            #expect(try await store.removeUser(username: "ann", keepingOne: "admin") == .lastAdmin)
            #expect(try await store.setRoles(of: "ann", to: ["editor"], keepingOne: "admin") == .lastAdmin)
            #expect(try await store.removeUser(username: "nobody", keepingOne: "admin") == .noSuchUser)

            // With another admin, she may go: disabled, her sessions end; enabled, they may start again.
            #expect(try await store.addUser(username: "bob", name: nil, roles: ["admin", "editor"], passwordHash: TestHashes.user))
            #expect(try await store.setDisabled(true, username: "ANN", keepingOne: "admin") == .done)
            #expect(try await store.setDisabled(true, username: "ann", keepingOne: "admin") == .done)
            #expect(!store.isCurrent(CredentialStamp(ann), username: "ann"))
            #expect(try await store.managedUsers().map(\.isDisabled) == [true, false])
            #expect(try await store.setDisabled(false, username: "ann", keepingOne: "admin") == .done)
            #expect(store.isCurrent(CredentialStamp(ann), username: "ann"))

            // A new password or new roles end the sessions made before.
            #expect(try await store.setPasswordHash(of: "ann", to: TestHashes.user))
            #expect(!store.isCurrent(CredentialStamp(ann), username: "ann"))
            #expect(try store.replacePasswordHash(of: "ann", TestHashes.user, with: TestHashes.ann))
            #expect(try store.replacePasswordHash(of: "ann", TestHashes.user, with: TestHashes.ann) == false)
            #expect(store.isCurrent(CredentialStamp(ann), username: "ann"))
            #expect(try await store.setRoles(of: "ann", to: ["editor"], keepingOne: "admin") == .done)
            #expect(!store.isCurrent(CredentialStamp(ann), username: "ann"))
            #expect(try await store.allUsers().map(\.roles) == [["editor"], ["admin", "editor"]])

            #expect(try await store.removeUser(username: "Ann", keepingOne: "admin") == .done)
            #expect(try await store.find(username: "ann", using: PasswordHasher.shared) == nil)
            #expect(try await store.allUsers().map(\.username) == ["bob"])
        }
    }

    @Test(arguments: TestDatabaseKind.available)
    func valuesAreBoundNeverSpliced(_ kind: TestDatabaseKind) async throws {
        try await withStore(kind) { store async throws in
            let name = "o'brien_%"
            #expect(try await store.addUser(username: name, name: "'; DROP TABLE users; --", roles: ["a_b"], passwordHash: TestHashes.ann))
            #expect(try await store.addUser(username: "axb", name: nil, roles: ["axb"], passwordHash: TestHashes.user))
            #expect(try await store.find(username: name, using: PasswordHasher.shared)?.user.name == "'; DROP TABLE users; --")
            // `_` in a role is no wildcard: `axb` holds no `a_b`, so the last holder of `a_b` stays.
            #expect(try await store.setRoles(of: name, to: [], keepingOne: "a_b") == .lastAdmin)
            #expect(try await store.allUsers().count == 2)
        }
    }
}
