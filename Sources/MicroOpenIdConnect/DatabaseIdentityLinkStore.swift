import Foundation
import Micro

/// Identity links kept in a ``Database`` (SQLite or PostgreSQL): they survive a restart, and
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
/// same database), triggers delete a user's links when their row is deleted or renamed,
/// whoever does it (the app, `remove-user`, plain SQL); and a link found to name a user the
/// store no longer holds is dropped then (``unlink(_:)``).
public final class DatabaseIdentityLinkStore: IdentityLinkStore {
    /// The database.
    public let database: Database

    /// The store over `database`: creates its table when missing, and with `usersTable` (a
    /// plain name: letters, digits, `_`) the triggers that drop the links of users deleted
    /// from that table.
    public init(_ database: Database, usersTable: String? = nil) async throws(ConfigurationError) {
        self.database = database
        var list = Self.migrations
        if let usersTable {
            guard usersTable.range(of: "^[A-Za-z_][A-Za-z0-9_]{0,62}$", options: .regularExpression) != nil else {
                throw ConfigurationError("DatabaseIdentityLinkStore: the users table '\(usersTable)' is not a plain table name.")
            }
            list.append(Self.followUsers(usersTable, dialect: database.dialectName))
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
        }
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

    private struct Row: Decodable {
        let issuer: String
        let subject: String
        let username: String
    }

    public func username(linkedTo identity: ExternalIdentity) async throws -> String? {
        try await database.run("read an identity link") { sql in
            try await sql.select().columns("issuer", "subject", "username").from("micro_identity_links")
                .where("issuer", .equal, identity.issuer).where("subject", .equal, identity.subject)
                .first(decoding: Row.self)?.username
        }
    }

    public func identity(linkedTo username: String, issuer: String) async throws -> ExternalIdentity? {
        try await database.run("read an identity link") { sql in
            try await sql.select().columns("issuer", "subject", "username").from("micro_identity_links")
                .where("issuer", .equal, issuer).where("username", .equal, username)
                .first(decoding: Row.self).map { ExternalIdentity(issuer: $0.issuer, subject: $0.subject) }
        }
    }

    public func link(_ identity: ExternalIdentity, to username: String) async throws -> Bool {
        let now = Int64(Date().timeIntervalSince1970)
        return try await database.run("link an identity") { sql in
            // Either constraint stops a second link; what is in the table afterwards decides.
            try await sql.raw("""
                INSERT INTO micro_identity_links (issuer, subject, username, linked_at)
                VALUES (\(bind: identity.issuer), \(bind: identity.subject), \(bind: username), \(bind: now))
                ON CONFLICT DO NOTHING
                """).run()
            let linked = try await sql.select().columns("issuer", "subject", "username").from("micro_identity_links")
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
