import ArgumentParser
import Foundation
import Micro

/// Makes a token for a provisioning client (Okta, Entra) to send to the app's SCIM endpoints,
/// printed on the last line of standard output; or, with `--revoke-all`, ends every one.
struct ScimTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scim-token",
        abstract: "Make a token for the identity provider's SCIM provisioning (printed on the last line), kept as a digest beside the users table; --revoke-all ends every SCIM token.")

    @OptionGroup var database: UserDatabaseOptions

    @Option(help: "What to call the token (the provider: okta, entra); the audit names it beside each change it makes.")
    var name = "scim"

    @Flag(help: "Revoke every SCIM token: the provider's next request is refused.")
    var revokeAll = false

    func validate() throws {
        if let problem = ScimToken.problem(withName: name) { throw ValidationError("--name: \(problem)") }
    }

    func run() async throws {
        try await database.withTable(create: false) { table in
            try await table.withDatabase { database in
                try await database.migrate(DatabaseScimStore.migrations)
                let store = DatabaseScimStore(database)
                if revokeAll {
                    let count = try await store.revokeAll()
                    print("Revoked \(count) SCIM token\(count == 1 ? "" : "s") in \(table.place): the provider's next request is refused.")
                    return
                }
                let (secret, token) = ScimToken.make(name: name, now: Int64(Date().timeIntervalSince1970))
                try await store.add(token)
                print("A SCIM token '\(name)' for \(table.place): give the provider the base URL {public URL}{base path}/scim/v2 (or ScimProvisioning.path) and this token (shown once):")
                print(secret)
            }
        }
    }
}
