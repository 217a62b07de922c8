#if OpenIdConnect
import ArgumentParser
import Foundation
import Micro
import MicroOpenIdConnect

/// Removes a user's single sign-on links: their next single sign-on is a first one again.
struct UnlinkIdentity: UserCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlink",
        abstract: "Remove a user's single sign-on links (or the one of --subject); sessions they signed in go on until they end.")

    @Argument(help: "The username (case-insensitive).")
    var username: String

    @Option(help: "Only the link of this subject (sub).")
    var subject: String?

    @OptionGroup var database: UserDatabaseOptions

    func act(on key: String, in table: CommandUserTable) async throws {
        let removed = try await table.withDatabase { database -> [IdentityLink] in
            let store = try await DatabaseIdentityLinkStore(database)
            let removed: [IdentityLink]
            if let subject {
                removed = try await store.links(of: [key], limit: 1000).filter { $0.identity.subject == subject }
                for link in removed { try await store.unlink(link.identity) }
            } else {
                removed = try await store.unlinkAll(of: key)
            }
            for link in removed {
                await CommandEvent.record(
                    OpenIdConnect.unlinkedEvent, of: key, detail: "issuer=\(link.identity.issuer) subject=\(link.identity.subject) by command",
                    in: database)
            }
            return removed
        }
        guard !removed.isEmpty else { throw CommandFailure("'\(key)' has no such link in \(table.place).") }
        for link in removed {
            print("Unlinked '\(key)' from subject \(ControlEscapingLogHandler.escape(link.identity.subject)) at \(ControlEscapingLogHandler.escape(link.identity.issuer)).")
        }
    }
}
#endif
