import Foundation
import MicroAuth
import MicroCore
import MicroTestSupport
import Testing

@Suite struct UserStoreTests {
    @Test(arguments: UserStoreKind.allCases)
    func findsUsersCaseInsensitivelyWithTheirNames(_ kind: UserStoreKind) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try kind.make(in: folder)
        let user = try #require(try store.find(username: "USER"))
        #expect(user.user == User(username: "user", name: "User"))
        #expect(Password.verify("secret123", against: user.passwordHash))
        #expect(try store.find(username: "ann")?.user.name == "Ann Smith")
        #expect(try store.find(username: "nobody") == nil)
        #expect(try store.find(username: "' OR 1=1 --") == nil)
        #expect(store.typicalCost == (kind == .yaml ? 4 : nil))
    }

    @Test func theSeedsFileLoadsExactlyAsWritten() throws {
        let folder = try TemporaryFolder(["credentials.yml": seedCredentials])
        defer { folder.remove() }
        let store = try YamlUserStore(file: folder.file("credentials.yml"))
        let user = try #require(try store.find(username: "user"))
        #expect(user.user.name == "User")
        #expect(Password.verify("secret123", against: user.passwordHash))
        #expect(store.typicalCost == 10)
    }

    @Test func badYamlFilesStopWithTheFileAndLine() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cases: [(String, String)] = [
            ("username: user\npassword_hash: [unclosed\n", "credentials.yml:2: malformed YAML"),
            ("username: user\n", "credentials.yml:1: user 'user' has no `password_hash`"),
            ("password_hash: $2a$10$38FTKkrtpylOYomyC03Mb..Efdzu1BFa7c7bZav1FKuYJUAzosx1u\n", "credentials.yml:1: missing key `username`"),
            ("# users\nusername: user\npassword_hash: secret123\n", "credentials.yml:3: the password_hash of user 'user' is not a bcrypt hash"),
            ("users:\n  - username: a\n    password_hash: \(TestHashes.secret123)\n  - username: A\n    password_hash: \(TestHashes.secret123)\n", "credentials.yml:4: user 'A' appears twice"),
            ("users: nobody\n", "credentials.yml:1: `users` must be a list"),
            ("- just\n- a list\n", "credentials.yml:1: expected `username:`"),
            ("", "credentials.yml:1: expected `username:`"),
        ]
        for (text, expected) in cases {
            try folder.write("credentials.yml", text)
            do {
                _ = try YamlUserStore(file: folder.file("credentials.yml"))
                Issue.record("no error for: \(text)")
            } catch {
                #expect(error.message.contains(expected), "\(error.message)")
            }
        }
        #expect(throws: ConfigurationError.self) { try YamlUserStore(file: folder.file("missing.yml")) }
    }

    @Test func yamlAliasBombsAreRefused() throws {
        var text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        for (index, name) in ["b", "c", "d", "e", "f", "g"].enumerated() {
            let previous = index == 0 ? "a" : ["b", "c", "d", "e", "f"][index - 1]
            text += "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 10).joined(separator: ", ") + "]\n"
        }
        let folder = try TemporaryFolder(["bomb.yml": text])
        defer { folder.remove() }
        #expect(throws: ConfigurationError.self) { try YamlUserStore(file: folder.file("bomb.yml")) }
    }

    @Test func aBrokenEditKeepsTheUsersLoadedBefore() throws {
        let folder = try TemporaryFolder(["credentials.yml": seedCredentials])
        defer { folder.remove() }
        let store = try YamlUserStore(file: folder.file("credentials.yml"))
        try folder.write("credentials.yml", "username: [broken\n")
        #expect(throws: ConfigurationError.self) { try store.reload() }
        #expect(try store.find(username: "user") != nil)
        try folder.write("credentials.yml", "users:\n  - username: other\n    password_hash: \(TestHashes.secret123)\n")
        try store.reload()
        #expect(try store.find(username: "user") == nil)
        #expect(try store.find(username: "other") != nil)
    }

    @Test func badSqliteDatabasesStopWithAClearError() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        do {
            _ = try SqliteUserStore(path: folder.file("missing.db"))
            Issue.record("no error for a missing file")
        } catch {
            #expect(error.message.contains("missing.db: no such users database"))
        }
        let empty = try SqliteUserStore(path: folder.file("other.db"), create: true)
        #expect(try empty.count() == 0)
        try Data("this is not a database at all, just some text that is long enough".utf8).write(to: URL(fileURLWithPath: folder.file("garbage.db")))
        #expect(throws: ConfigurationError.self) { try SqliteUserStore(path: folder.file("garbage.db")) }

        let store = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try store.save(username: "ok", passwordHash: TestHashes.secret123, name: nil)
        #expect(throws: UserStoreError.self) { try store.save(username: "bad", passwordHash: "plain", name: nil) }
    }

    @Test func sqliteAnswersManyConcurrentLookups() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try UserStoreKind.sqlite.make(in: folder)
        let found = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<400 {
                group.addTask { try store.find(username: index.isMultiple(of: 2) ? "user" : "ann") != nil }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(found == 400)
    }

    @Test func addingAUserTwiceUpdatesThem() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try store.save(username: "Zed", passwordHash: TestHashes.secret123, name: nil)
        try store.save(username: "zed", passwordHash: TestHashes.annPassword, name: "Zed Z")
        #expect(try store.count() == 1)
        let zed = try #require(try store.find(username: "ZED"))
        #expect(zed.user.name == "Zed Z")
        #expect(Password.verify("ann-password", against: zed.passwordHash))
    }
}
