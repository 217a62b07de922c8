#if OpenIdConnect
import Foundation
import MicroCore

/// Identity links kept in a ``/MicroCore/Database`` (SQLite or PostgreSQL): they survive a restart, and
/// every instance over the same database follows the same links.
///
/// ```swift
/// var sso = OpenIdConnect(issuer: issuer, clientId: "tools", clientSecret: secret)
/// sso.links = try await DatabaseIdentityLinkStore(database, usersTable: "users")
/// ```
///
/// Each link is a row of `micro_identity_links`, unique by (`issuer`, `subject`) and by
/// (`issuer`, `username`); a link is made by one insert that does nothing on a conflict and is
/// then read back, so two first sign-ins racing on two instances (one subject twice, or two
/// subjects for one user) make one link, and the loser is refused.
///
/// A link must not outlive its user: a new user given a removed user's name would otherwise
/// inherit the removed user's provider account. With `usersTable` (the store's table in the
/// same database), triggers delete a user's links when their row is deleted, and move them when it is renamed,
/// whoever does it (the app, `remove-user`, plain SQL); and a link found to name a user the
/// store no longer holds is dropped then (``unlink(_:)``).
///
/// Links expire: a sign-in following one notes it used (`last_used_at`, written at most once
/// a day, so that most sign-ins only read), and making a link first deletes links unused for
/// ``retention``, a bounded batch at a time; so the table stays bounded without a background job.
public final class DatabaseIdentityLinkStore: IdentityLinkStore {
    /// The database.
    public let database: Database
    /// How long a link unused is kept (``IdentityLinkRetention/default``: a year); past it the
    /// link is as none, and the next sign-in links afresh.
    public let retention: Duration
    /// ``retention`` in seconds, as the links' times are compared.
    let retentionInterval: TimeInterval

    /// The most expired links one new link deletes besides its own: more than one, so that the
    /// expired rows are gone faster than new ones come, yet one sign-in's work stays small.
    static let expiredBatch = 100

    /// The store over `database`: creates its table when missing, and with `usersTable` (a
    /// plain name: letters, digits, `_`) the triggers that drop the links of users deleted
    /// from that table.
    public init(_ database: Database, usersTable: String? = nil,
                retention: Duration = IdentityLinkRetention.default) async throws(ConfigurationError) {
        self.database = database
        self.retention = retention
        retentionInterval = retention / .seconds(1)
        var list = Self.migrations
        if let usersTable {
            guard usersTable.range(of: "^[A-Za-z_][A-Za-z0-9_]{0,62}$", options: .regularExpression) != nil else {
                throw ConfigurationError("DatabaseIdentityLinkStore: the users table '\(usersTable)' is not a plain table name.")
            }
            list.append(Self.followUsers(usersTable, dialect: database.dialectName))
            list.append(Self.followRenames(usersTable, dialect: database.dialectName))
        }
        try await database.migrate(list)
    }

    /// The table.
    static let migrations = [
        Migration("micro 1 identity links") { sql in
            try await sql.create(table: "micro_identity_links").ifNotExists()
                .column("issuer", type: .text, .notNull)
                .column("subject", type: .text, .notNull)
                .column("username", type: .text, .notNull)
                .column("linked_at", type: .bigint, .notNull)
                .primaryKey("issuer", "subject")
                .unique("issuer", "username")
                .run()
        },
        Migration("micro 3 identity links last used") { sql in
            try await sql.alter(table: "micro_identity_links")
                .column("last_used_at", type: .bigint, .notNull, .default(SQLLiteral.numeric("0"))).run()
            // The links made before count as used now: each keeps a full retention from the
            // upgrade, rather than all expiring at once (0 would read as long unused), and none
            // is kept for ever (as 0 read as "now" would be, while unused).
            let now = Int64(Date().timeIntervalSince1970)
            try await sql.update("micro_identity_links").set("last_used_at", to: SQLBind(now))
                .where("last_used_at", .equal, SQLBind(Int64(0))).run()
        },
    ]

    /// The triggers deleting the links of a user whose row in `table` is deleted or renamed.
    static func followUsers(_ table: String, dialect: String) -> Migration {
        Migration("micro 2 identity links follow \(table)") { sql in
            if dialect == "postgresql" {
                try await sql.raw("""
                    CREATE OR REPLACE FUNCTION micro_identity_links_user_gone() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        IF TG_OP = 'DELETE' THEN
                            DELETE FROM micro_identity_links WHERE lower(username) = lower(OLD.username);
                        ELSIF lower(OLD.username) <> lower(NEW.username) THEN
                            DELETE FROM micro_identity_links WHERE lower(username) = lower(OLD.username);
                        END IF;
                        RETURN NULL;
                    END $$
                    """).run()
                try await sql.raw("""
                    CREATE OR REPLACE TRIGGER micro_identity_links_user_gone AFTER DELETE OR UPDATE OF username ON \(unsafeRaw: table)
                        FOR EACH ROW EXECUTE FUNCTION micro_identity_links_user_gone()
                    """).run()
            } else {
                try await sql.raw("""
                    CREATE TRIGGER IF NOT EXISTS micro_identity_links_user_deleted AFTER DELETE ON \(unsafeRaw: table)
                    BEGIN DELETE FROM micro_identity_links WHERE lower(username) = lower(OLD.username); END
                    """).run()
                try await sql.raw("""
                    CREATE TRIGGER IF NOT EXISTS micro_identity_links_user_renamed AFTER UPDATE OF username ON \(unsafeRaw: table)
                    WHEN lower(OLD.username) <> lower(NEW.username)
                    BEGIN DELETE FROM micro_identity_links WHERE lower(username) = lower(OLD.username); END
                    """).run()
            }
        }
    }

    /// The name of the migration that makes the triggers following renames, before the table's.
    static let followRenamesPrefix = "micro 13 identity links follow renames in "

    /// The triggers moving the links of a user whose row in `table` is renamed to the new name
    /// (those an earlier holder of it left go first), in place of deleting them: a user renamed
    /// (`rename-user`, plain SQL) is still the same person.
    static func followRenames(_ table: String, dialect: String) -> Migration {
        Migration(followRenamesPrefix + table) { sql in
            if dialect == "postgresql" {
                try await sql.raw("""
                    CREATE OR REPLACE FUNCTION micro_identity_links_user_gone() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        IF TG_OP = 'DELETE' THEN
                            DELETE FROM micro_identity_links WHERE lower(username) = lower(OLD.username);
                        ELSIF lower(OLD.username) <> lower(NEW.username) THEN
                            DELETE FROM micro_identity_links WHERE lower(username) = lower(NEW.username);
                            UPDATE micro_identity_links SET username = NEW.username WHERE lower(username) = lower(OLD.username);
                        END IF;
                        RETURN NULL;
                    END $$
                    """).run()
            } else {
                try await sql.raw("DROP TRIGGER IF EXISTS micro_identity_links_user_renamed").run()
                try await sql.raw("""
                    CREATE TRIGGER micro_identity_links_user_renamed AFTER UPDATE OF username ON \(unsafeRaw: table)
                    WHEN lower(OLD.username) <> lower(NEW.username)
                    BEGIN
                        DELETE FROM micro_identity_links WHERE lower(username) = lower(NEW.username);
                        UPDATE micro_identity_links SET username = NEW.username WHERE lower(username) = lower(OLD.username);
                    END
                    """).run()
            }
        }
    }

    private struct Row: Decodable {
        let issuer: String
        let subject: String
        let username: String
        let lastUsedAt: Int64

        enum CodingKeys: String, CodingKey {
            case issuer, subject, username
            case lastUsedAt = "last_used_at"
        }
    }

    /// The last use before which a link has expired at `now` (whole seconds since 1970).
    func cutoff(_ now: Int64) -> Int64 { Int64(TimeInterval(now) - retentionInterval) }

    /// The wall time, in whole seconds since 1970: what the calls given no `now` judge by.
    static func wallTime() -> Int64 { Int64(Date().timeIntervalSince1970) }

    /// The unexpired link of `identity` at `now`.
    private func row(_ identity: ExternalIdentity, now: Int64) async throws -> Row? {
        try await database.run("read an identity link") { sql in
            try await sql.select().columns("issuer", "subject", "username", "last_used_at").from("micro_identity_links")
                .where("issuer", .equal, identity.issuer).where("subject", .equal, identity.subject)
                .where("last_used_at", .greaterThanOrEqual, cutoff(now))
                .first(decoding: Row.self)
        }
    }

    /// The username `identity` is linked to, judged at wall time; not noted as a use.
    public func username(linkedTo identity: ExternalIdentity) async throws -> String? {
        try await row(identity, now: Self.wallTime())?.username
    }

    public func follow(_ identity: ExternalIdentity, now: Int64) async throws -> String? {
        guard let row = try await row(identity, now: now) else { return nil }
        if row.lastUsedAt < now - IdentityLinkRetention.useGranularity {
            // Conditional, so that instances noting the same sign-in at once write it once.
            try await database.run("note an identity link used") { sql in
                try await sql.update("micro_identity_links").set("last_used_at", to: SQLBind(now))
                    .where("issuer", .equal, identity.issuer).where("subject", .equal, identity.subject)
                    .where("last_used_at", .lessThan, now - IdentityLinkRetention.useGranularity)
                    .run()
            }
        }
        return row.username
    }

    public func identity(linkedTo username: String, issuer: String) async throws -> ExternalIdentity? {
        try await database.run("read an identity link") { sql in
            try await sql.select().columns("issuer", "subject", "username", "last_used_at").from("micro_identity_links")
                .where("issuer", .equal, issuer).where("username", .equal, username)
                .where("last_used_at", .greaterThanOrEqual, cutoff(Self.wallTime()))
                .first(decoding: Row.self).map { ExternalIdentity(issuer: $0.issuer, subject: $0.subject) }
        }
    }

    public func link(_ identity: ExternalIdentity, to username: String) async throws -> Bool {
        try await link(identity, to: username, now: Self.wallTime())
    }

    public func link(_ identity: ExternalIdentity, to username: String, now: Int64) async throws -> Bool {
        let cutoff = cutoff(now)
        return try await database.run("link an identity") { sql in
            // An expired link of either side is as none: gone first, so that it blocks nothing.
            try await sql.raw("""
                DELETE FROM micro_identity_links
                WHERE issuer = \(bind: identity.issuer) AND (subject = \(bind: identity.subject) OR username = \(bind: username))
                AND last_used_at < \(bind: cutoff)
                """).run()
            // Then a bounded batch of the others, so that the table stays bounded.
            try await sql.raw("""
                DELETE FROM micro_identity_links WHERE (issuer, subject) IN (
                    SELECT issuer, subject FROM micro_identity_links WHERE last_used_at < \(bind: cutoff)
                    LIMIT \(unsafeRaw: String(Self.expiredBatch)))
                """).run()
            // Either constraint stops a second link; what is in the table afterwards decides.
            try await sql.raw("""
                INSERT INTO micro_identity_links (issuer, subject, username, linked_at, last_used_at)
                VALUES (\(bind: identity.issuer), \(bind: identity.subject), \(bind: username), \(bind: now), \(bind: now))
                ON CONFLICT DO NOTHING
                """).run()
            let linked = try await sql.select().columns("issuer", "subject", "username", "last_used_at").from("micro_identity_links")
                .where("issuer", .equal, identity.issuer).where("subject", .equal, identity.subject)
                .first(decoding: Row.self)
            return linked?.username == username
        }
    }

    public func unlink(_ identity: ExternalIdentity) async throws {
        try await database.run("remove an identity link") { sql in
            try await sql.delete(from: "micro_identity_links")
                .where("issuer", .equal, identity.issuer).where("subject", .equal, identity.subject).run()
        }
    }
}
#endif
