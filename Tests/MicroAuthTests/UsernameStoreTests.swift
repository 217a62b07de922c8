import Foundation
import MicroAuth
import MicroCore
import MicroTestSupport
import Testing

/// Every store keeps one user per name under ``Username``'s rule, and refuses names outside it.
@Suite struct UsernameStoreTests {
    @Test func yamlFilesRefuseNamesOutsideTheRuleWithTheFileAndLine() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let hash = TestHashes.secret123
        let cases: [(String, String)] = [
            ("users:\n  - username: ok\n    password_hash: \(hash)\n  - username: \"bob \"\n    password_hash: \(hash)\n",
             "credentials.yml:4: the username 'bob ' holds a space"),
            ("username: \"\u{212A}ate\"\npassword_hash: \(hash)\n", "credentials.yml:1: the username 'Kate' holds U+212A KELVIN SIGN"),
            ("# escapes\nusername: \"\\e[31mred\"\npassword_hash: \(hash)\n", "credentials.yml:2: the username '\\u{1B}[31mred' holds the control character U+001B"),
            ("username: a:b\npassword_hash: \(hash)\n", "credentials.yml:1: the username 'a:b' holds ':'"),
            ("username: \"\"\npassword_hash: \(hash)\n", "credentials.yml:1: missing key `username`"),
            ("users:\n  - username: ÉMILE\n    password_hash: \(hash)\n  - username: \"e\u{301}mile\"\n    password_hash: \(hash)\n",
             "credentials.yml:4: user 'émile' appears twice"),
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
    }

    @Test(arguments: UserStoreKind.allCases)
    func everySpellingOfANameFindsTheOneUser(_ kind: UserStoreKind) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store: any UserStore
        switch kind {
        case .yaml:
            try folder.writeUsers("credentials.yml", [("ÉMILE", TestHashes.secret123, nil), ("kate", TestHashes.annPassword, nil)])
            store = try YamlUserStore(file: folder.file("credentials.yml"))
        case .sqlite:
            let sqlite = try SqliteUserStore(path: folder.file("users.db"), create: true)
            try sqlite.save(username: "ÉMILE", passwordHash: TestHashes.secret123, name: nil)
            try sqlite.save(username: "ＫＡＴＥ", passwordHash: TestHashes.annPassword, name: nil)
            store = sqlite
        }
        for spelling in ["émile", "ÉMILE", "e\u{301}mile", "E\u{301}MILE", "Ｅ\u{301}ＭＩＬＥ"] {
            #expect(try store.find(username: spelling)?.user.username == "émile", "\(spelling)")
        }
        #expect(try store.find(username: "KATE")?.user.username == "kate")
        #expect(try store.find(username: "\u{212A}ate") == nil)
        #expect(try store.find(username: "kate\u{0}") == nil)
    }

    @Test func sqliteRefusesToSaveANameOutsideTheRule() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SqliteUserStore(path: folder.file("users.db"), create: true)
        for name in ["\u{212A}ate", "bob ", "a:b", "", "\u{1B}[31mx"] {
            #expect(throws: UserStoreError.self) { try store.save(username: name, passwordHash: TestHashes.secret123, name: nil) }
        }
        #expect(try store.count() == 0)
    }

    @Test func openingASqliteTableRewritesItsNamesToTheEnforcedForm() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("users.db")
        _ = try SqliteUserStore(path: path, create: true)
        let writer = try await SqliteWriter(path)
        try await writer.execute("INSERT INTO users (username, password_hash) VALUES ('ÉMILE', '\(TestHashes.secret123)'), ('Kate', '\(TestHashes.annPassword)')")

        let store = try SqliteUserStore(path: path)
        #expect(try store.find(username: "émile")?.user.username == "émile")
        #expect(try store.find(username: "kate") != nil)
        // The rows hold the enforced names now: a second spelling of one is refused by the table.
        await #expect(throws: SqliteWriterError.self) {
            try await writer.execute("INSERT INTO users (username, password_hash) VALUES ('émile', '\(TestHashes.secret123)')")
        }
    }

    @Test func twoSpellingsOfOneNameInASqliteTableStopStartUpNamingBothRows() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("users.db")
        _ = try SqliteUserStore(path: path, create: true)
        let writer = try await SqliteWriter(path)
        try await writer.execute("INSERT INTO users (username, password_hash) VALUES ('ÉMILE', '\(TestHashes.secret123)'), ('émile', '\(TestHashes.annPassword)')")
        do {
            _ = try SqliteUserStore(path: path)
            Issue.record("a table with ÉMILE and émile opened")
        } catch {
            #expect(error.message.contains("users.db: users rows 1 ('ÉMILE') and 2 ('émile') are one user, 'émile'"), "\(error.message)")
        }
        // Nothing was rewritten: both rows are as they were.
        try await writer.execute("DELETE FROM users WHERE username = 'ÉMILE'")
        #expect(try SqliteUserStore(path: path).find(username: "ÉMILE") != nil)
    }

    @Test func aSqliteRowOutsideTheRuleStopsStartUpNamingIt() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("users.db")
        _ = try SqliteUserStore(path: path, create: true)
        try await SqliteWriter(path).execute("INSERT INTO users (username, password_hash) VALUES ('ok', '\(TestHashes.secret123)'), ('bob ', '\(TestHashes.secret123)')")
        do {
            _ = try SqliteUserStore(path: path)
            Issue.record("a table with 'bob ' opened")
        } catch {
            #expect(error.message.contains("users.db: users row 2: the username 'bob ' holds a space"), "\(error.message)")
        }
    }

    @Test func aRowAddedBySqlInAnotherSpellingDoesNotSignTheUserOut() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("users.db")
        let store = try SqliteUserStore(path: path, create: true)
        try store.save(username: "émile", passwordHash: TestHashes.secret123, name: nil)
        let stamp = CredentialStamp(try #require(try store.find(username: "émile")))
        try await SqliteWriter(path).execute("INSERT INTO users (username, password_hash) VALUES ('ÉMILE', '\(TestHashes.annPassword)')")
        #expect(try store.find(username: "ÉMILE").map(CredentialStamp.init) == stamp)
        // The background reading of the table keeps émile's stamp.
        #expect(try await store.allUsers().map(\.username) == ["émile"])
    }
}
