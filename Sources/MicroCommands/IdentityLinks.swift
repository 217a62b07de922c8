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
            let names: [String]
            if usernames.isEmpty { names = try await table.usernames() } else { names = try usernames.map { try Username.enforce($0) } }
            let links = try await table.withDatabase { database in
                try await DatabaseIdentityLinkStore(database).links(of: names, limit: 100_000)
            }
            if links.isEmpty { print("No links.") }
            for link in links {
                print([link.username, link.identity.issuer, link.identity.subject, "linked " + Self.day(link.linkedAt), "last used " + Self.day(link.lastUsedAt)]
                    .joined(separator: "\t"))
            }
        }
    }

    static func day(_ date: Date) -> String { String(date.ISO8601Format().prefix(10)) }
}
#endif
