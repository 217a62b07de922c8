import Foundation
import Micro
import MicroPostgres
import MicroTestSupport
import Testing

/// The users table's statements, written once (`UserTable`), behave alike in SQLite and
/// PostgreSQL: one test body for both stores.
@Suite(.timeLimit(.minutes(3))) struct UserTableStoreTests {
    private typealias Store = any UserTableStore & PasswordUpgradingUserStore

    /// Runs `body` with a new, empty users store of `kind`.
    private func withStore(_ kind: TestDatabaseKind, _ body: (Store) async throws -> Void) async throws {
        try await withStores(kind, count: 1) { stores in try await body(stores[0]) }
    }

    /// Runs `body` with `count` stores over one new, empty users table of `kind`, each on a
    /// connection of its own, as that many instances of an app are.
    private func withStores(_ kind: TestDatabaseKind, count: Int, _ body: ([Store]) async throws -> Void) async throws {
        switch kind {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-users-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let path = folder.appendingPathComponent("users.db").path
            var stores: [Store] = []
            for index in 0..<count { stores.append(try SqliteUserStore(path: path, create: index == 0)) }
            try await body(stores)
        case .postgres:
            try await PostgresTestDatabase.withShared(count) { shared in
                var stores: [Store] = []
                for database in shared { stores.append(try await PostgresUserStore(database)) }
                try await body(stores)
            }
        }
    }

    @Test(arguments: TestDatabaseKind.available)
    func theAdminsChangesKeepAnAdminAndTheStampsFollow(_ kind: TestDatabaseKind) async throws {
        try await withStore(kind) { store async throws in
            #expect(try await store.addUser(username: "Ann", name: "Ann Smith", roles: ["admin"], passwordHash: TestHashes.annPassword))
            // One user whatever the case: the name is enforced, the row matched alike.
            #expect(try await store.addUser(username: "ANN", name: nil, roles: [], passwordHash: TestHashes.secret123) == false)
            let ann = try #require(try await store.find(username: "aNN", using: PasswordHasher.shared))
            #expect(ann.user == User(username: "ann", name: "Ann Smith", roles: ["admin"]))
            #expect(store.isCurrent(CredentialStamp(ann), username: "ann"))

            // The last enabled admin stays.
            #expect(try await store.setDisabled(true, username: "ann", keepingOne: "admin") == .lastAdmin)
            #expect(try await store.removeUser(username: "ann", keepingOne: "admin") == .lastAdmin)
            #expect(try await store.setRoles(of: "ann", to: ["editor"], keepingOne: "admin") == .lastAdmin)
            #expect(try await store.removeUser(username: "nobody", keepingOne: "admin") == .noSuchUser)

            // With another admin, she may go: disabled, her sessions end; enabled, they may start again.
            #expect(try await store.addUser(username: "bob", name: nil, roles: ["admin", "editor"], passwordHash: TestHashes.secret123))
            #expect(try await store.setDisabled(true, username: "ANN", keepingOne: "admin") == .done)
            #expect(try await store.setDisabled(true, username: "ann", keepingOne: "admin") == .done)
            #expect(!store.isCurrent(CredentialStamp(ann), username: "ann"))
            #expect(try await store.managedUsers().map(\.isDisabled) == [true, false])
            #expect(try await store.setDisabled(false, username: "ann", keepingOne: "admin") == .done)
            #expect(store.isCurrent(CredentialStamp(ann), username: "ann"))

            // A new password or new roles end the sessions made before.
            #expect(try await store.setPasswordHash(of: "ann", to: TestHashes.secret123))
            #expect(!store.isCurrent(CredentialStamp(ann), username: "ann"))
            #expect(try store.replacePasswordHash(of: "ann", TestHashes.secret123, with: TestHashes.annPassword))
            #expect(try store.replacePasswordHash(of: "ann", TestHashes.secret123, with: TestHashes.annPassword) == false)
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
    func addressesAreOneUsersAndAPasswordSetBySomeoneElseIsMarkedUntilTheirOwnChange(_ kind: TestDatabaseKind) async throws {
        try await withStore(kind) { store async throws in
            #expect(try await store.addUser(
                username: "ann", name: nil, roles: ["admin"], email: "Ann@Example.com", passwordHash: TestHashes.annPassword, passwordChangeDue: false))
            // The address is taken in any case: the unique index refuses it.
            #expect(try await store.addUser(
                username: "bob", name: nil, roles: [], email: "ann@example.COM", passwordHash: TestHashes.secret123, passwordChangeDue: true) == false)
            #expect(try await store.addUser(
                username: "bob", name: nil, roles: [], email: nil, passwordHash: TestHashes.secret123, passwordChangeDue: true))
            #expect(try await store.setEmail(of: "bob", to: "ANN@example.com") == .taken)
            #expect(try await store.setEmail(of: "bob", to: "bob@example.com") == .done)
            #expect(try await store.setEmail(of: "bob", to: "bob@example.com") == .done)
            #expect(try await store.setEmail(of: "nobody", to: "x@example.com") == .noSuchUser)
            #expect(try await store.setEmail(of: "ann", to: nil) == .done)
            #expect(try await store.setEmail(of: "bob", to: "ann@example.com") == .done)
            await #expect(throws: UserStoreError.self) { try await store.setEmail(of: "bob", to: "bob@example.com\r\nBcc: x@y.com") }
            let listed = try await store.managedUsers()
            #expect(listed.map(\.user.email) == [nil, "ann@example.com"] && listed.map(\.passwordChangeDue) == [false, true])

            // The mark is part of the stamp; the user's own change drops it, a re-hash keeps it.
            let bob = try #require(try await store.find(username: "bob", using: PasswordHasher.shared))
            #expect(bob.passwordChangeDue && store.isCurrent(CredentialStamp(bob), username: "bob"))
            #expect(try store.replacePasswordHash(of: "bob", TestHashes.secret123, with: TestHashes.annPassword))
            #expect(try await store.find(username: "bob", using: PasswordHasher.shared)?.passwordChangeDue == true)
            #expect(try await store.replaceOwnPasswordHash(of: "bob", TestHashes.secret123, with: TestHashes.annPassword) == false)
            #expect(try await store.replaceOwnPasswordHash(of: "bob", TestHashes.annPassword, with: TestHashes.secret123))
            let own = try #require(try await store.find(username: "bob", using: PasswordHasher.shared))
            #expect(!own.passwordChangeDue && store.isCurrent(CredentialStamp(own), username: "bob") && !store.isCurrent(CredentialStamp(bob), username: "bob"))
            #expect(try await store.setPasswordHash(of: "bob", to: TestHashes.annPassword, changeDue: true))
            #expect(try await store.find(username: "bob", using: PasswordHasher.shared)?.passwordChangeDue == true)
        }
    }

    @Test(arguments: TestDatabaseKind.available)
    func aUserWithoutAPasswordIsKeptAndStaysSoWhenDisabled(_ kind: TestDatabaseKind) async throws {
        try await withStore(kind) { store async throws in
            #expect(try await store.addUser(username: "dee", name: nil, roles: [], passwordHash: StoredUser.noPasswordHash))
            let dee = try #require(try await store.find(username: "dee", using: PasswordHasher.shared))
            #expect(!dee.hasPassword && !dee.isDisabled)
            #expect(try await store.addUser(username: "ann", name: nil, roles: ["admin"], passwordHash: TestHashes.annPassword))
            #expect(try await store.setDisabled(true, username: "dee", keepingOne: "admin") == .done)
            let disabled = try #require(try await store.find(username: "dee", using: PasswordHasher.shared))
            #expect(disabled.isDisabled && !disabled.hasPassword)
            // Anything else that is no bcrypt hash is still refused.
            await #expect(throws: (any Error).self) { try await store.addUser(username: "eve", name: nil, roles: [], passwordHash: "*other") }
        }
    }

    @Test(arguments: TestDatabaseKind.available)
    func valuesAreBoundNeverSpliced(_ kind: TestDatabaseKind) async throws {
        try await withStore(kind) { store async throws in
            let name = "o'brien_%"
            #expect(try await store.addUser(username: name, name: "'; DROP TABLE users; --", roles: ["a_b"], passwordHash: TestHashes.annPassword))
            #expect(try await store.addUser(username: "axb", name: nil, roles: ["axb"], passwordHash: TestHashes.secret123))
            #expect(try await store.find(username: name, using: PasswordHasher.shared)?.user.name == "'; DROP TABLE users; --")
            // `_` in a role is no wildcard: `axb` holds no `a_b`, so the last holder of `a_b` stays.
            #expect(try await store.setRoles(of: name, to: [], keepingOne: "a_b") == .lastAdmin)
            #expect(try await store.allUsers().count == 2)
        }
    }

    @Test(arguments: TestDatabaseKind.available, 0..<5)
    func twoAdminsDemotingEachOtherOnTwoInstancesLeaveOne(_ kind: TestDatabaseKind, round: Int) async throws {
        try await withStores(kind, count: 2) { stores async throws in
            let one = stores[0], two = stores[1]
            #expect(try await one.addUser(username: "ann", name: nil, roles: ["admin"], passwordHash: TestHashes.annPassword))
            #expect(try await one.addUser(username: "bob", name: nil, roles: ["admin", "editor"], passwordHash: TestHashes.secret123))
            async let annDemotesBob = one.setRoles(of: "bob", to: ["editor"], keepingOne: "admin")
            async let bobEndsAnn = switch round % 3 {
            case 0: two.setRoles(of: "ann", to: [], keepingOne: "admin")
            case 1: two.removeUser(username: "ann", keepingOne: "admin")
            default: two.setDisabled(true, username: "ann", keepingOne: "admin")
            }
            let outcomes = try await [annDemotesBob, bobEndsAnn]
            #expect(outcomes.filter { $0 == .done }.count == 1)
            #expect(outcomes.filter { $0 == .lastAdmin }.count == 1)
            let admins = try await one.managedUsers().filter { $0.user.has(role: "admin") && !$0.isDisabled }
            #expect(admins.count == 1)
            #expect(try await two.setRoles(of: "nobody", to: [], keepingOne: "admin") == .noSuchUser)
        }
    }
}
