import Foundation
import Micro
import MicroOpenIdConnect
import Testing
import SampleApp

/// `add-user --sso-only`, `links` and `unlink`, run as a person would.
@Suite struct IdentityLinkCommandTests {
    private func run(_ arguments: [String], input: String = "") throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = try SampleAppProcess.binary()
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    @Test func aUserForSingleSignOnOnlyHasNoPasswordAndItsLinksAreListedAndRemoved() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-cli-links-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("users.db").path
        // Someone from outside the store signed in as `dee` (the `any` mapping) before.
        let database = try await Database.sqlite(path: path)
        let links = try await DatabaseIdentityLinkStore(database)
        #expect(try await links.link(ExternalIdentity(issuer: "https://idp.example", subject: "sub-outsider"), to: "dee"))
        await database.shutdown()

        let added = try run(["add-user", "Dee", "--db", path, "--sso-only"])
        #expect(added.status == 0)
        #expect(added.output.contains("Saved new user 'dee' in \(path) for single sign-on only."))
        #expect(added.output.contains("Dropped the link of 'dee' to subject sub-outsider at https://idp.example"))
        let store = try SqliteUserStore(path: path)
        let dee = try #require(try store.find(username: "dee"))
        #expect(!dee.hasPassword)
        #expect(StoredUser.isNoPasswordHash(dee.passwordHash))
        #expect(!Password.verify("", against: dee.passwordHash) && !Password.verify(StoredUser.noPasswordHash, against: dee.passwordHash))

        let again = try await Database.sqlite(path: path)
        #expect(try await DatabaseIdentityLinkStore(again).link(ExternalIdentity(issuer: "https://idp.example", subject: "sub-dee"), to: "dee"))
        await again.shutdown()
        let listed = try run(["links", "--db", path])
        #expect(listed.status == 0)
        #expect(listed.output.hasPrefix("dee\thttps://idp.example\tsub-dee\tlinked "))
        #expect(try run(["unlink", "dee", "--db", path, "--subject", "sub-other"]).status != 0)
        let unlinked = try run(["unlink", "DEE", "--db", path])
        #expect(unlinked.status == 0)
        #expect(unlinked.output.contains("Unlinked 'dee' from subject sub-dee at https://idp.example."))
        #expect(try run(["links", "dee", "--db", path]).output == "No links.\n")
        // Both removals are in the audit, as the page's are.
        let audit = try await Database.sqlite(path: path)
        let events = try await DatabaseActivityLog(audit).events(of: "dee", offset: 0, limit: 10).filter { $0.event == "identity_unlinked" }
        await audit.shutdown()
        #expect(events.map(\.detail).sorted() == [
            "issuer=https://idp.example subject=sub-dee by command",
            "issuer=https://idp.example subject=sub-outsider the name was given to a new user",
        ])
    }

    @Test func linksListsOutsideUsersAndEscapesWhatTheProviderChose() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-cli-links-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("users.db").path
        #expect(try run(["add-user", "ann", "--db", path, "--sso-only"]).status == 0)
        // `eve` signed in from outside the store (no row of hers); her provider chose a
        // subject that would retitle the terminal and forge a column and a row.
        let hostile = "s1\u{1B}]0;owned\u{07}\tadmin\nroot\thttps://idp.example\tx"
        let database = try await Database.sqlite(path: path)
        #expect(try await DatabaseIdentityLinkStore(database).link(ExternalIdentity(issuer: "https://idp.example", subject: hostile), to: "eve"))
        #expect(try await DatabaseIdentityLinkStore(database).link(ExternalIdentity(issuer: "https://idp.example", subject: "sub-ann"), to: "ann"))
        await database.shutdown()

        let listed = try run(["links", "--db", path])
        #expect(listed.status == 0)
        let rows = listed.output.split(separator: "\n")
        #expect(rows.count == 2)
        #expect(rows.allSatisfy { $0.split(separator: "\t", omittingEmptySubsequences: false).count == 5 })
        #expect(!listed.output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        #expect(listed.output.contains("eve\thttps://idp.example\t" + #"s1\u{1B}]0;owned\u{7}\tadmin\nroot\thttps://idp.example\tx"# + "\tlinked "))

        let unlinked = try run(["unlink", "eve", "--db", path])
        #expect(unlinked.output.contains(#"from subject s1\u{1B}]0;owned\u{7}\tadmin\nroot"#))
    }
}
