import Foundation
import Micro
import MicroOpenIdConnect
import MicroTestSupport
import Testing

/// A renamed user's single sign-on lands on their new name: the stores move the links, and
/// where the users table shares the database its trigger moves them with the row.
@Suite struct IdentityLinkRenameTests {
    private let okta = ExternalIdentity(issuer: "https://id.example.com", subject: "sub-bob")
    private let stale = ExternalIdentity(issuer: "https://id.example.com", subject: "sub-old-robert")

    @Test(arguments: DataStoreKind.allCases)
    func theStoreMovesTheLinksInPlaceOfAnEarlierHoldersOfTheNewName(_ kind: DataStoreKind) async throws {
        try await kind.withIdentityLinks { links async throws in
            #expect(try await links.link(okta, to: "bob"))
            #expect(try await links.link(stale, to: "robert"))
            try await links.rename("bob", to: "robert")
            #expect(try await links.username(linkedTo: okta) == "robert")
            #expect(try await links.username(linkedTo: stale) == nil)
            #expect(try await links.identity(linkedTo: "bob", issuer: okta.issuer) == nil)
        }
    }

    @Test(arguments: DataStoreKind.allCases)
    func anEarlierHoldersLinksGoEvenWhenTheOldNameHasNone(_ kind: DataStoreKind) async throws {
        try await kind.withIdentityLinks { links async throws in
            #expect(try await links.link(stale, to: "robert"))
            try await links.rename("bob", to: "robert")
            #expect(try await links.username(linkedTo: stale) == nil)
            #expect(try await links.identity(linkedTo: "robert", issuer: stale.issuer) == nil)
        }
    }

    @Test func aUsersTableInTheSameDatabaseCarriesTheLinksWithTheRow() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let users = try SqliteUserStore(path: folder.file("app.db"), create: true)
        try users.save(username: "bob", passwordHash: TestHashes.secret123, name: nil)
        let database = try await Database.sqlite(path: folder.file("app.db"))
        let links = try await DatabaseIdentityLinkStore(database, usersTable: "users")
        #expect(try await links.link(okta, to: "bob"))
        #expect(try await users.rename("bob", to: "robert") == .done)
        #expect(try await links.username(linkedTo: okta) == "robert")
        // What the account pages then do finds nothing left to move.
        try await links.rename("bob", to: "robert")
        #expect(try await links.username(linkedTo: okta) == "robert")
        // A removal still drops them.
        #expect(try users.remove(username: "robert"))
        #expect(try await links.username(linkedTo: okta) == nil)
        await database.shutdown()
        await users.shutdown()
    }
}
