import MicroCore
import SQLKit

/// ``SetupLink``s in the table `micro_setup_links` of a ``/MicroCore/Database`` (SQLite or
/// PostgreSQL), shared by every instance: a link made on one opens on another, and of two posts
/// racing on two instances one takes it (`DELETE … RETURNING`). Each addition removes the
/// user's older link and a bounded batch of expired ones, so the table stays bounded by the
/// users without a background job.
public final class DatabaseSetupLinkStore: SetupLinkStore {
    /// The database.
    public let database: Database

    /// The most expired rows one addition deletes besides its user's.
    static let expiredBatch = 100

    /// The store over `database`; its table is made by ``migrations``.
    public init(_ database: Database) {
        self.database = database
    }

    /// The table.
    public static let migrations = [
        Migration("micro 1 setup links") { sql in
            try await sql.create(table: "micro_setup_links").ifNotExists()
                .column("digest", type: .text, .primaryKey(autoIncrement: false))
                .column("username", type: .text, .notNull)
                .column("purpose", type: .text, .notNull)
                .column("hash_digest", type: .text, .notNull)
                .column("created_at", type: .bigint, .notNull)
                .column("expires_at", type: .bigint, .notNull)
                .run()
            try await sql.create(index: "micro_setup_links_user").on("micro_setup_links").column("username").run()
            try await sql.create(index: "micro_setup_links_expiry").on("micro_setup_links").column("expires_at").run()
        },
        // A user's reset messages of the last window, one row per place of its limit.
        Migration("micro 2 reset messages") { sql in
            try await sql.create(table: "micro_setup_link_resets").ifNotExists()
                .column("username", type: .text, .notNull)
                .column("slot", type: .int, .notNull)
                .column("sent_at", type: .bigint, .notNull)
                .primaryKey("username", "slot")
                .run()
            try await sql.create(index: "micro_setup_link_resets_time").on("micro_setup_link_resets").column("sent_at").run()
        },
    ]

    private struct Row: Decodable {
        let digest: String
        let username: String
        let purpose: String
        let hashDigest: String
        let createdAt: Int64
        let expiresAt: Int64

        enum CodingKeys: String, CodingKey {
            case digest, username, purpose
            case hashDigest = "hash_digest"
            case createdAt = "created_at"
            case expiresAt = "expires_at"
        }

        var link: SetupLink? {
            SetupLink.Purpose(rawValue: purpose).map {
                SetupLink(digest: digest, username: username, purpose: $0, hashDigest: hashDigest, createdAt: createdAt, expiresAt: expiresAt)
            }
        }
    }

    private static let columns = ["digest", "username", "purpose", "hash_digest", "created_at", "expires_at"].map { SQLIdentifier($0) }

    public func add(_ link: SetupLink, now: Int64) async throws {
        try await database.transaction { sql in
            try await sql.delete(from: "micro_setup_links").where("username", .equal, link.username).run()
            try await sql.raw("""
                DELETE FROM micro_setup_links WHERE digest IN (
                    SELECT digest FROM micro_setup_links WHERE expires_at <= \(bind: now) LIMIT \(unsafeRaw: String(Self.expiredBatch)))
                """).run()
            try await sql.insert(into: "micro_setup_links").columns(Self.columns)
                .values(SQLBind(link.digest), SQLBind(link.username), SQLBind(link.purpose.rawValue), SQLBind(link.hashDigest),
                    SQLBind(link.createdAt), SQLBind(link.expiresAt))
                .run()
        }
    }

    public func find(digest: String, now: Int64) async throws -> SetupLink? {
        try await database.run("read a set-up link") { sql in
            try await sql.select().columns(Self.columns).from("micro_setup_links").where("digest", .equal, digest)
                .where("expires_at", .greaterThan, now).first(decoding: Row.self)
        }?.link
    }

    public func take(digest: String, now: Int64) async throws -> SetupLink? {
        let rows = try await database.run("use a set-up link") { sql in
            try await sql.delete(from: "micro_setup_links").where("digest", .equal, digest).returning(Self.columns).all(decoding: Row.self)
        }
        return rows.compactMap(\.link).first { $0.expiresAt > now }
    }

    public func removeAll(of username: String) async throws {
        try await database.run("remove set-up links") { sql in
            try await sql.delete(from: "micro_setup_links").where("username", .equal, username).run()
        }
    }

    public func rename(_ username: String, to newName: String) async throws {
        try await database.transaction { sql in
            try await sql.update("micro_setup_links").set("username", to: SQLBind(newName)).where("username", .equal, username).run()
        }
    }

    /// The user has `limit` places, each taken by a message until `window` has passed: a message
    /// takes the first free place in one statement, which two instances cannot both win.
    public func countReset(of username: String, now: Int64, limit: Int, window: Int64) async throws -> Bool {
        try await database.run("count a reset message") { sql in
            // Places whose window passed: the table keeps no more than `limit` rows per user who
            // asked within a window.
            try await sql.delete(from: "micro_setup_link_resets").where("sent_at", .lessThanOrEqual, now - window).run()
            for slot in 0..<max(0, limit) {
                let taken = try await sql.raw("""
                    INSERT INTO micro_setup_link_resets (username, slot, sent_at) VALUES (\(bind: username), \(bind: slot), \(bind: now))
                    ON CONFLICT (username, slot) DO UPDATE SET sent_at = excluded.sent_at
                    WHERE micro_setup_link_resets.sent_at <= \(bind: now - window)
                    RETURNING slot
                    """).first()
                if taken != nil { return true }
            }
            return false
        }
    }
}
