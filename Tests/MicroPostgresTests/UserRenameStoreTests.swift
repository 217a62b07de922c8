import Foundation
import Micro
import MicroPostgres
import MicroTestSupport
import Testing

/// Renaming a user and changing roles one at a time behave alike in SQLite and PostgreSQL.
@Suite(.timeLimit(.minutes(3))) struct UserRenameStoreTests {
    private typealias Store = any UserTableStore & PasswordUpgradingUserStore

    /// Runs `body` with `count` stores over one new, empty users table of `kind`, as that many
    /// instances of an app are.
    private func withStores(_ kind: TestDatabaseKind, count: Int = 1, _ body: ([Store]) async throws -> Void) async throws {
        switch kind {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-rename-\(UUID().uuidString)")
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
    func aRenamedUserKeepsTheirRowAndTheirOldNameIsFree(_ kind: TestDatabaseKind) async throws {
        try await withStores(kind) { stores async throws in
            let store = stores[0]
            #expect(try await store.addUser(username: "ann", name: "Ann Smith", roles: ["admin", "editor"], email: "ann@example.com", passwordHash: TestHashes.annPassword, passwordChangeDue: false, disabled: false))
            #expect(try await store.addUser(username: "bob", name: nil, roles: [], email: nil, passwordHash: TestHashes.secret123, passwordChangeDue: false, disabled: true))
            let ann = try #require(try await store.find(username: "ann", using: PasswordHasher.shared))
            #expect(store.isCurrent(CredentialStamp(ann), username: "ann"))

            #expect(try await store.rename("ANN", to: "Ann.Lee") == .done)
            #expect(try await store.find(username: "ann", using: PasswordHasher.shared) == nil)
            // The session signed in as ann is over: no stamp for the old name.
            #expect(!store.isCurrent(CredentialStamp(ann), username: "ann"))
            let renamed = try #require(try await store.find(username: "ann.lee", using: PasswordHasher.shared))
            #expect(renamed.user.username == "ann.lee" && renamed.user.name == "Ann Smith" && renamed.user.roles == ["admin", "editor"])
            #expect(renamed.user.email.map { "\($0)" } == "ann@example.com")
            #expect(renamed.passwordHash == TestHashes.annPassword)
            #expect(store.isCurrent(CredentialStamp(renamed), username: "ann.lee"))

            // The disabled state goes with the row.
            #expect(try await store.rename("bob", to: "robert") == .done)
            #expect(try await store.managedUsers().first { $0.user.username == "robert" }?.isDisabled == true)

            // Refusals: taken (in any case), a look-alike, outside the rule, no such user.
            #expect(try await store.rename("robert", to: "ANN.LEE") == .taken)
            guard case .refused = try await store.rename("robert", to: "\u{430}nn.lee") else { Issue.record("a look-alike was taken"); return }
            guard case .refused = try await store.rename("robert", to: "two words") else { Issue.record("a space was taken"); return }
            #expect(try await store.rename("nobody", to: "somebody") == .noSuchUser)
            // Only the case differs: the enforced name is already theirs.
            #expect(try await store.rename("Robert", to: "ROBERT") == .done)
            #expect(try await store.rename("nobody", to: "NOBODY") == .noSuchUser)
            #expect(try await store.allUsers().map(\.username) == ["ann.lee", "robert"])

            // The old name is free for someone new.
            #expect(try await store.addUser(username: "ann", name: nil, roles: [], passwordHash: TestHashes.secret123))
            #expect(!store.isCurrent(CredentialStamp(ann), username: "ann"))
        }
    }

    @Test(arguments: TestDatabaseKind.available)
    func rolesChangedOneAtATimeFromManyInstancesLoseNothing(_ kind: TestDatabaseKind) async throws {
        try await withStores(kind, count: 3) { stores async throws in
            #expect(try await stores[0].addUser(username: "ann", name: nil, roles: ["admin"], passwordHash: TestHashes.annPassword))
            #expect(try await stores[0].addUser(username: "bob", name: nil, roles: ["old"], passwordHash: TestHashes.secret123))
            let roles = (0..<12).map { "group-\($0)" }
            try await withThrowingTaskGroup(of: UserChange.self) { group in
                for (index, role) in roles.enumerated() { group.addTask { try await stores[index % stores.count].addRole(role, to: "bob") } }
                for try await change in group { #expect(change == .done) }
            }
            #expect(Set(try #require(try await stores[0].find(username: "bob", using: PasswordHasher.shared)).user.roles) == Set(roles + ["old"]))
            try await withThrowingTaskGroup(of: UserChange.self) { group in
                for (index, role) in roles.enumerated() where index % 2 == 0 {
                    group.addTask { try await stores[index % stores.count].removeRole(role, from: "bob", keepingOne: "admin") }
                }
                for try await change in group { #expect(change == .done) }
            }
            let left = Set(roles.enumerated().filter { $0.offset % 2 == 1 }.map(\.element) + ["old"])
            #expect(Set(try #require(try await stores[0].find(username: "bob", using: PasswordHasher.shared)).user.roles) == left)
            // Again is no change; the last admin keeps the role; no such user.
            #expect(try await stores[0].addRole("old", to: "bob") == .done)
            #expect(try await stores[0].removeRole("group-0", from: "bob", keepingOne: "admin") == .done)
            #expect(try await stores[0].removeRole("admin", from: "ann", keepingOne: "admin") == .lastAdmin)
            #expect(try await stores[0].addRole("x", to: "nobody") == .noSuchUser)
            // A role listed twice (written by hand) goes both times.
            #expect(try await stores[0].addUser(username: "cy", name: nil, roles: ["dup", "dup", "keep", "dup"], passwordHash: TestHashes.secret123))
            #expect(try await stores[0].removeRole("dup", from: "cy", keepingOne: "admin") == .done)
            #expect(try #require(try await stores[0].find(username: "cy", using: PasswordHasher.shared)).user.roles == ["keep"])
            await #expect(throws: UserStoreError.self) { try await stores[0].addRole("Not A Role", to: "bob") }
        }
    }

    /// A carry that fails leaves the user their old name: the rename is rolled back (PostgreSQL)
    /// or undone (SQLite) before another change comes.
    @Test(arguments: TestDatabaseKind.available)
    func aRenameCarriedKeepsTheOldNameWhenTheCarryFails(_ kind: TestDatabaseKind) async throws {
        struct Refusal: Error {}
        try await withStores(kind) { stores async throws in
            let store = stores[0]
            #expect(try await store.addUser(username: "bob", name: "Bob", roles: ["ops"], passwordHash: TestHashes.secret123))
            let carried = Locked<[String]>([])
            let done = try await store.rename("Bob", to: "Robert") { old, new in carried.withLock { $0.append("\(old)>\(new)") } }
            #expect(done == .done && carried.withLock { $0 } == ["bob>robert"])
            await #expect(throws: Refusal.self) {
                try await store.rename("robert", to: "bobby") { _, _ in throw Refusal() }
            }
            #expect(try await store.allUsers().map(\.username) == ["robert"])
            let robert = try #require(try await store.find(username: "robert", using: PasswordHasher.shared))
            #expect(robert.user.roles == ["ops"] && store.isCurrent(CredentialStamp(robert), username: "robert"))
            // A rename refused by the table never carries.
            #expect(try await store.addUser(username: "cy", name: nil, roles: [], passwordHash: TestHashes.secret123))
            #expect(try await store.rename("robert", to: "cy") { _, _ in throw Refusal() } == .taken)
            #expect(try await store.rename("nobody", to: "body") { _, _ in throw Refusal() } == .noSuchUser)
        }
    }

    /// A user added under the old name while the carry runs waits until it has ended: their
    /// addition, which forgets what the name left, cannot meet half-carried rows. On
    /// PostgreSQL the addition comes from another instance; SQLite's guard is the store's own.
    /// Whatever the timing, the addition never ends first; the carry's pause makes an
    /// addition that did not wait end first.
    @Test(arguments: TestDatabaseKind.available)
    func anAdditionUnderTheOldNameWaitsForTheCarry(_ kind: TestDatabaseKind) async throws {
        try await withStores(kind, count: kind == .postgres ? 2 : 1) { stores async throws in
            let (renaming, adding) = (stores[0], stores[stores.count - 1])
            #expect(try await renaming.addUser(username: "bob", name: nil, roles: [], passwordHash: TestHashes.secret123))
            let steps = Locked<[String]>([])
            let addition = Locked<Task<Bool, any Error>?>(nil)
            let done = try await renaming.rename("bob", to: "robert") { _, _ in
                steps.withLock { $0.append("carry begins") }
                addition.withLock { $0 = Task {
                    defer { steps.withLock { $0.append("added") } }
                    return try await adding.addUser(username: "bob", name: nil, roles: [], passwordHash: TestHashes.annPassword)
                } }
                try await Task.sleep(for: .milliseconds(300))
                steps.withLock { $0.append("carry ends") }
            }
            #expect(done == .done)
            #expect(try await #require(addition.withLock { $0 }).value)
            #expect(steps.withLock { $0 } == ["carry begins", "carry ends", "added"])
            #expect(Set(try await adding.allUsers().map(\.username)) == ["bob", "robert"])
        }
    }

    @Test(arguments: TestDatabaseKind.available)
    func aRoleIsRenamedForEveryHolderButTheAdminRoleStaysAndNoneBecomesIt(_ kind: TestDatabaseKind) async throws {
        try await withStores(kind) { stores async throws in
            let store = stores[0]
            #expect(try await store.addUser(username: "ann", name: nil, roles: ["admin", "staff"], passwordHash: TestHashes.annPassword))
            #expect(try await store.addUser(username: "bob", name: nil, roles: ["staff"], passwordHash: TestHashes.secret123))
            #expect(try await store.addUser(username: "cy", name: nil, roles: ["staff", "team"], passwordHash: TestHashes.secret123))
            #expect(try await store.addUser(username: "di", name: nil, roles: ["staffer"], passwordHash: TestHashes.secret123))
            let bob = try #require(try await store.find(username: "bob", using: PasswordHasher.shared))
            #expect(try await store.renameRole("staff", to: "team", keepingOne: "admin") == .done(users: 3))
            let roles = Dictionary(uniqueKeysWithValues: try await store.allUsers().map { ($0.username, Set($0.roles)) })
            #expect(roles == ["ann": ["admin", "team"], "bob": ["team"], "cy": ["team"], "di": ["staffer"]])
            // Their sessions end, as on any change of roles.
            #expect(!store.isCurrent(CredentialStamp(bob), username: "bob"))
            #expect(try await store.renameRole("admin", to: "boss", keepingOne: "admin") == .adminRole)
            // Renaming a role to the admin role would make each holder an admin: refused, unchanged.
            #expect(try await store.renameRole("team", to: "admin", keepingOne: "admin") == .adminRole)
            #expect(try await store.find(username: "bob", using: PasswordHasher.shared)?.user.roles == ["team"])
            #expect(try await store.renameRole("nobody-has-it", to: "x", keepingOne: "admin") == .done(users: 0))
        }
    }
}
