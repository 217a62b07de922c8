#if OpenIdConnect
import Foundation
import MicroCore

/// The sessions single sign-on began, and the logout tokens acted on, kept in a
/// ``/MicroCore/Database`` (SQLite or PostgreSQL): a logout the provider sends to any
/// instance finds a session begun on another, and after a restart.
///
/// ```swift
/// var sso = OpenIdConnect(issuer: issuer, clientId: "tools", clientSecret: secret)
/// sso.providerSessions = try await DatabaseProviderSessionStore(database)
/// ```
///
/// Sessions are rows of `micro_provider_sessions`, logout tokens of `micro_logout_tokens`.
/// Each addition first deletes a bounded batch of expired rows, so both tables stay bounded
/// without a background job. Taking sessions is one `DELETE … RETURNING`, and noting a token
/// one insert that does nothing on a conflict: two instances racing act once.
public final class DatabaseProviderSessionStore: ProviderSessionStore {
    /// The database.
    public let database: Database

    /// The most expired rows one addition deletes besides: more than one, so that expired
    /// rows go faster than new ones come, yet one sign-in's work stays small.
    static let expiredBatch = 100

    /// The store over `database`: creates its tables when missing.
    public init(_ database: Database) async throws(ConfigurationError) {
        self.database = database
        try await database.migrate(Self.migrations)
    }

    /// The tables.
    static let migrations = [
        Migration("micro 1 provider sessions") { sql in
            try await sql.create(table: "micro_provider_sessions").ifNotExists()
                .column("session_id", type: .text, .primaryKey(autoIncrement: false))
                .column("issuer", type: .text, .notNull)
                .column("subject", type: .text, .notNull)
                .column("provider_session_id", type: .text)
                .column("username", type: .text, .notNull)
                .column("expires_at", type: .bigint, .notNull)
                .run()
            try await sql.create(index: "micro_provider_sessions_person").on("micro_provider_sessions").column("issuer").column("subject").run()
            try await sql.create(index: "micro_provider_sessions_sid").on("micro_provider_sessions").column("issuer").column("provider_session_id").run()
            try await sql.create(index: "micro_provider_sessions_expiry").on("micro_provider_sessions").column("expires_at").run()
            try await sql.create(table: "micro_logout_tokens").ifNotExists()
                .column("issuer", type: .text, .notNull)
                .column("token_id", type: .text, .notNull)
                .column("expires_at", type: .bigint, .notNull)
                .primaryKey("issuer", "token_id")
                .run()
            try await sql.create(index: "micro_logout_tokens_expiry").on("micro_logout_tokens").column("expires_at").run()
        },
        Migration("micro 2 provider sessions' listed identity") { sql in
            try await sql.raw("ALTER TABLE micro_provider_sessions ADD COLUMN listed_session_id TEXT").run()
        },
    ]

    private struct Row: Decodable {
        let sessionId: String
        let issuer: String
        let subject: String
        let providerSessionId: String?
        let username: String
        let listedSessionId: String?
        let expiresAt: Int64

        enum CodingKeys: String, CodingKey {
            case issuer, subject, username
            case sessionId = "session_id"
            case providerSessionId = "provider_session_id"
            case listedSessionId = "listed_session_id"
            case expiresAt = "expires_at"
        }

        var session: ProviderSession {
            ProviderSession(
                identity: ExternalIdentity(issuer: issuer, subject: subject), providerSessionId: providerSessionId, username: username,
                sessionId: sessionId, listedId: listedSessionId, expiresAt: expiresAt)
        }
    }

    private static let columns = ["session_id", "issuer", "subject", "provider_session_id", "username", "listed_session_id", "expires_at"]

    public func record(_ session: ProviderSession, now: Int64) async throws {
        try await database.run("note a single sign-on session") { sql in
            try await sql.raw("""
                DELETE FROM micro_provider_sessions WHERE session_id IN (
                    SELECT session_id FROM micro_provider_sessions WHERE expires_at <= \(bind: now)
                    LIMIT \(unsafeRaw: String(Self.expiredBatch)))
                """).run()
            try await sql.raw("""
                INSERT INTO micro_provider_sessions (session_id, issuer, subject, provider_session_id, username, listed_session_id, expires_at)
                VALUES (\(bind: session.sessionId), \(bind: session.identity.issuer), \(bind: session.identity.subject),
                    \(bind: session.providerSessionId), \(bind: session.username), \(bind: session.listedId), \(bind: session.expiresAt))
                ON CONFLICT (session_id) DO UPDATE SET issuer = excluded.issuer, subject = excluded.subject,
                    provider_session_id = excluded.provider_session_id, username = excluded.username,
                    listed_session_id = excluded.listed_session_id, expires_at = excluded.expires_at
                """).run()
        }
    }

    public func take(issuer: String, providerSessionId: String?, subject: String?, now: Int64) async throws -> [ProviderSession] {
        guard providerSessionId != nil || subject != nil else { return [] }
        let rows = try await database.run("end single sign-on sessions") { sql in
            var delete = sql.delete(from: "micro_provider_sessions").where("issuer", .equal, issuer)
            if let providerSessionId { delete = delete.where("provider_session_id", .equal, providerSessionId) }
            if let subject { delete = delete.where("subject", .equal, subject) }
            return try await delete.returning(Self.columns.map { SQLIdentifier($0) }).all(decoding: Row.self)
        }
        return rows.map(\.session).filter { $0.expiresAt > now }.sorted { $0.sessionId < $1.sessionId }
    }

    public func noteLogoutToken(_ tokenId: String, issuer: String, until expiry: Int64, now: Int64) async throws -> Bool {
        try await database.run("note a logout token") { sql in
            try await sql.raw("""
                DELETE FROM micro_logout_tokens WHERE (issuer, token_id) IN (
                    SELECT issuer, token_id FROM micro_logout_tokens WHERE expires_at <= \(bind: now)
                    LIMIT \(unsafeRaw: String(Self.expiredBatch)))
                """).run()
            return try await !sql.insert(into: "micro_logout_tokens").columns("issuer", "token_id", "expires_at")
                .values(SQLBind(issuer), SQLBind(tokenId), SQLBind(expiry))
                .ignoringConflicts(with: ["issuer", "token_id"]).returning("token_id").all().isEmpty
        }
    }

    public func forgetLogoutToken(_ tokenId: String, issuer: String) async throws {
        try await database.run("forget a logout token") { sql in
            try await sql.delete(from: "micro_logout_tokens").where("issuer", .equal, issuer).where("token_id", .equal, tokenId).run()
        }
    }
}
#endif
