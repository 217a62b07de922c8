#if OpenIdConnect
import Foundation
import MicroCore

extension DatabaseIdentityLinkStore: IdentityLinkListing {
    private struct ListedRow: Decodable {
        let issuer: String
        let subject: String
        let username: String
        let linkedAt: Int64
        let lastUsedAt: Int64

        enum CodingKeys: String, CodingKey {
            case issuer, subject, username
            case linkedAt = "linked_at"
            case lastUsedAt = "last_used_at"
        }

        var link: IdentityLink {
            IdentityLink(
                identity: ExternalIdentity(issuer: issuer, subject: subject), username: username,
                linkedAt: Date(timeIntervalSince1970: TimeInterval(linkedAt)), lastUsedAt: Date(timeIntervalSince1970: TimeInterval(lastUsedAt)))
        }
    }

    public func links(of usernames: [String], limit: Int) async throws -> [IdentityLink] {
        var found: [IdentityLink] = []
        let cutoff = cutoff(Self.wallTime())
        // In batches, so that a long list of users binds a bounded number of parameters.
        for batch in stride(from: 0, to: usernames.count, by: 500).map({ Array(usernames[$0..<min($0 + 500, usernames.count)]) }) {
            let remaining = limit - found.count
            guard remaining > 0 else { break }
            let rows = try await database.run("list identity links") { sql in
                try await sql.select().columns("issuer", "subject", "username", "linked_at", "last_used_at").from("micro_identity_links")
                    .where("username", .in, batch).where("last_used_at", .greaterThanOrEqual, cutoff)
                    .orderBy("username").orderBy("issuer").orderBy("subject").limit(remaining)
                    .all(decoding: ListedRow.self)
            }
            found += rows.map(\.link)
        }
        return found
    }

    public func allLinks(limit: Int) async throws -> [IdentityLink] {
        let cutoff = cutoff(Self.wallTime())
        return try await database.run("list identity links") { sql in
            try await sql.select().columns("issuer", "subject", "username", "linked_at", "last_used_at").from("micro_identity_links")
                .where("last_used_at", .greaterThanOrEqual, cutoff)
                .orderBy("username").orderBy("issuer").orderBy("subject").limit(max(0, limit))
                .all(decoding: ListedRow.self).map(\.link)
        }
    }

    public func unlinkAll(of username: String) async throws -> [IdentityLink] {
        try await database.run("remove identity links") { sql in
            let rows = try await sql.select().columns("issuer", "subject", "username", "linked_at", "last_used_at").from("micro_identity_links")
                .where("username", .equal, username).limit(1000).all(decoding: ListedRow.self)
            try await sql.delete(from: "micro_identity_links").where("username", .equal, username).run()
            return rows.map(\.link)
        }
    }

    public func rename(_ username: String, to newName: String) async throws {
        try await database.transaction { sql in
            // Where a users table's trigger follows renames, it moved the links with the row
            // and dropped an earlier holder's: the links under the new name are the user's own.
            let followed = try await sql.select().column("name").from("micro_migrations")
                .where("name", .like, Self.followRenamesPrefix + "%").first()
            guard followed == nil else { return }
            // Else those an earlier holder of the new name left go first, whether or not the
            // old name has any to move: a new name must not bring someone else's provider account.
            try await sql.delete(from: "micro_identity_links").where("username", .equal, newName).run()
            try await sql.update("micro_identity_links").set("username", to: SQLBind(newName)).where("username", .equal, username).run()
        }
    }
}
#endif
