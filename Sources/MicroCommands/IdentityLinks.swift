#if OpenIdConnect
import ArgumentParser
import Foundation
import Micro
import MicroOpenIdConnect

/// Lists the single sign-on links of a users table's users (SQLite or PostgreSQL).
struct IdentityLinks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "links",
        abstract: "List which provider accounts (issuer, subject) single sign-on has linked to users, when, and when last used.")

    @Argument(help: "The users to list (all when none).")
    var usernames: [String] = []

    @OptionGroup var database: UserDatabaseOptions

    func validate() throws {
        for username in usernames { try UsernameArgument.validate(username) }
    }

    func run() async throws {
        try await database.withTable(create: false) { table in
            let names = try usernames.map { try Username.enforce($0) }
            // Without names, every link: outside users' too, who have no row in the store.
            let links = try await table.withDatabase { database in
                let store = try await DatabaseIdentityLinkStore(database)
                return names.isEmpty ? try await store.allLinks(limit: 100_000) : try await store.links(of: names, limit: 100_000)
            }
            if links.isEmpty { print("No links.") }
            for link in links {
                // A provider chooses issuer and subject: escaped, so that neither drives the
                // terminal nor adds a tab-separated column or a row.
                print([link.username, link.identity.issuer, link.identity.subject].map(ControlEscapingLogHandler.escape)
                    .joined(separator: "\t") + "\tlinked " + Self.day(link.linkedAt) + "\tlast used " + Self.day(link.lastUsedAt))
            }
        }
    }

    static func day(_ date: Date) -> String { String(date.ISO8601Format().prefix(10)) }
}
#endif
