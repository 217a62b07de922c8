import Foundation
import Micro
import Testing

/// `add-user` and `remove-user` under ``Username``'s rule, run as a person would.
@Suite struct UsernameCommandTests {
    private func run(_ arguments: [String], input: String = "a long unusual phrase\n") throws -> CommandRun {
        try CommandRun(arguments, input: input)
    }

    private func withDatabase(_ body: (String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-usernames-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(folder.appendingPathComponent("users.db").path)
    }

    @Test func addUserSaysWhetherItSavesANewUserOrReplacesOne() throws {
        try withDatabase { database in
            let first = try run(["add-user", "ÉMILE", "--db", database, "--cost", "4"])
            #expect(first.status == 0)
            #expect(first.output.contains("Saved new user 'émile' in \(database)."))
            let again = try run(["add-user", "e\u{301}mile", "--db", database, "--role", "admin", "--cost", "4"])
            #expect(again.status == 0)
            #expect(again.output.contains("Replaced user 'émile' in \(database)"), "\(again.output)")
            let store = try SqliteUserStore(path: database)
            #expect(try store.count() == 1)
            #expect(try store.find(username: "Émile")?.user.roles == ["admin"])
        }
    }

    @Test(arguments: ["\u{212A}ate", "bob ", "a:b", "", "\u{1B}[31mred"])
    func addUserRefusesANameOutsideTheRule(_ name: String) throws {
        try withDatabase { database in
            _ = try run(["add-user", "kate", "--db", database, "--cost", "4"])
            let refused = try run(["add-user", name, "--db", database, "--role", "admin", "--cost", "4"])
            #expect(refused.status != 0)
            #expect(refused.errors.contains("username"), "\(refused.errors)")
            #expect(!refused.errors.contains("\u{1B}"))
            let kate = try #require(try SqliteUserStore(path: database).find(username: "kate"))
            #expect(kate.user.roles.isEmpty)
            #expect(try SqliteUserStore(path: database).count() == 1)
        }
    }

    @Test func addUserWarnsOfANameThatLooksLikeAnExistingOne() throws {
        try withDatabase { database in
            _ = try run(["add-user", "admin", "--db", database, "--cost", "4"])
            // Replacing a user is not a lookalike of themselves.
            #expect(!(try run(["add-user", "ADMIN", "--db", database, "--cost", "4"]).errors.contains("Warning")))
            let lookalike = try run(["add-user", "\u{430}dmin", "--db", database, "--cost", "4"])
            #expect(lookalike.status == 0)
            #expect(lookalike.errors.contains("Warning: '\u{430}dmin' looks like the existing user 'admin'"), "\(lookalike.errors)")
            #expect(lookalike.output.contains("Saved new user '\u{430}dmin'"))
            #expect(try SqliteUserStore(path: database).count() == 2)
        }
    }

    @Test func removeUserFindsAnySpelling() throws {
        try withDatabase { database in
            _ = try run(["add-user", "émile", "--db", database, "--cost", "4"])
            let removed = try run(["remove-user", "ÉMILE", "--db", database])
            #expect(removed.status == 0)
            #expect(removed.output.contains("Removed user 'émile'"))
            #expect(try run(["remove-user", "\u{212A}ate", "--db", database]).status != 0)
        }
    }
}
