import Foundation
import Micro

/// The set-up link `add-user --invite` makes: kept in the table the tool serves from, its URL
/// built from `MICRO_PUBLIC_URL` (else the address `serve` listens on by default), opening for
/// `MICRO_SETUP_LINK_LIFETIME`.
struct SetupLinkCommand {
    let origin: String
    let lifetime: Duration
    let now = Int64(Date().timeIntervalSince1970)

    init(environment: [String: String]) throws {
        if let raw = environment["MICRO_PUBLIC_URL"], !raw.isEmpty {
            do { let url = try PublicUrl(raw); origin = url.origin + url.path } catch { throw CommandFailure("MICRO_PUBLIC_URL: \(error.message)") }
        } else {
            origin = "http://localhost:\(environment["MICRO_PORT"].flatMap(Int.init) ?? Settings().port)"
        }
        do { lifetime = try Accounts.setupLinkLifetime(environment) } catch { throw CommandFailure(error.message) }
    }

    /// When the link stops opening, for the operator.
    var expiry: String { AccountTime.shown(now + lifetime.components.seconds) }

    /// Keeps a new link for `username`, whose stored hash is `hash`, in `database`; its URL.
    func make(for username: String, hash: String, in database: Database) async throws -> String {
        try await database.migrate(DatabaseSetupLinkStore.migrations)
        let secret = SetupLinkSecret.make()
        try await DatabaseSetupLinkStore(database).add(
            SetupLink(
                digest: SetupLinkSecret.digest(of: secret), username: username, purpose: .setup, hashDigest: SetupLinkSecret.digest(of: hash),
                createdAt: now, expiresAt: now + lifetime.components.seconds),
            now: now)
        return origin + Accounts().setupPath + "?key=" + secret
    }
}
