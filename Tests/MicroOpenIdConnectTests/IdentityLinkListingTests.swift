import Foundation
import Micro
import MicroOpenIdConnect
import MicroTestSupport
import Testing

/// What the users page and the commands read of the links, in memory and in SQLite.
@Suite struct IdentityLinkListingTests {
    @Test(arguments: DataStoreKind.allCases) func listsTheLinksOfTheUsersAskedForAndRemovesAUsersAll(_ kind: DataStoreKind) async throws {
        try await kind.withIdentityLinks { (links: any IdentityLinkListing) async throws in
            let made = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
            #expect(try await links.link(ExternalIdentity(issuer: "https://a.example", subject: "1"), to: "ann", now: Int64(made.timeIntervalSince1970)))
            #expect(try await links.link(ExternalIdentity(issuer: "https://b.example", subject: "2"), to: "ann", now: Int64(made.timeIntervalSince1970)))
            #expect(try await links.link(ExternalIdentity(issuer: "https://a.example", subject: "3"), to: "bob", now: Int64(made.timeIntervalSince1970)))
            let listed = try await links.links(of: ["ann", "cy"], limit: 10)
            #expect(listed.map(\.identity.subject) == ["1", "2"])
            #expect(listed.allSatisfy { $0.username == "ann" && $0.linkedAt == made && $0.lastUsedAt == made })
            #expect(try await links.links(of: ["ann", "bob"], limit: 2).count == 2)
            let removed = try await links.unlinkAll(of: "ann")
            #expect(Set(removed.map(\.identity.subject)) == ["1", "2"])
            #expect(try await links.links(of: ["ann", "bob"], limit: 10).map(\.username) == ["bob"])
            #expect(try await links.username(linkedTo: ExternalIdentity(issuer: "https://a.example", subject: "1")) == nil)
        }
    }
}
