import MicroAuth
import MicroCore
import SQLKit

/// The signed-in sessions of each user in a ``/MicroCore/Database`` (SQLite, or PostgreSQL shared by
/// every instance): a session ended on one instance is gone from the list on all of them,
/// and its revocation reaches them through the app's ``/MicroCore/SessionRevocations``.
public final class DatabaseSessionRegistry: SessionRegistry {
    /// The database.
    public let database: Database

    /// The registry over `database`; its table is made by a migration the app runs at start.
    public init(_ database: Database) {
        self.database = database
    }

    /// Its table, made when the app starts (``Accounts`` adds it to the app's preparations).
    /// Rows listed before sessions were timed to the millisecond have no `signed_in_at_ms`:
    /// they count from the start of their second.
    public static let migrations = [
        Migration("micro 2 session registry") { sql in
            try await sql.create(table: "micro_sessions").ifNotExists()
                .column("id", type: .text, .primaryKey(autoIncrement: false))
                .column("username", type: .text, .notNull)
                .column("session_id", type: .text, .notNull)
                .column("browser", type: .text, .notNull)
                .column("user_agent", type: .text, .notNull)
                .column("address", type: .text, .notNull)
                .column("signed_in_at", type: .bigint, .notNull)
                .column("last_seen_at", type: .bigint, .notNull)
                .column("expires_at", type: .bigint, .notNull)
                .run()
            try await sql.create(index: "micro_sessions_by_user").on("micro_sessions").column("username").column("signed_in_at").run()
        },
        Migration("micro 11 session registry: when a session began, to the millisecond") { sql in
            try await sql.alter(table: "micro_sessions").column("signed_in_at_ms", type: .bigint).run()
        },
    ]

    public func add(_ session: RegisteredSession) async throws -> [RegisteredSession] {
        let entry = session.entry
        return try await database.run("list a new session") { sql in
            try await sql.insert(into: "micro_sessions")
                .columns(
                    "id", "username", "session_id", "browser", "user_agent", "address", "signed_in_at", "last_seen_at", "expires_at", "signed_in_at_ms"
                )
                .values(
                    SQLBind(entry.id), SQLBind(entry.username), SQLBind(session.sessionId), SQLBind(entry.browser), SQLBind(entry.userAgent),
                    SQLBind(entry.address), SQLBind(entry.signedInAt), SQLBind(entry.lastSeenAt), SQLBind(session.expiresAt),
                    SQLBind(session.signedInMilliseconds)
                )
                .run()
            // Past their absolute end, entries are of no use to anyone.
            try await sql.delete(from: "micro_sessions").where("username", .equal, entry.username)
                .where("expires_at", .lessThanOrEqual, entry.signedInAt).run()
            let all = try await Self.rows(sql.select().column("*").from("micro_sessions").where("username", .equal, entry.username)
                .orderBy("signed_in_at", .ascending).all())
            let dropped = Array(all.prefix(max(0, all.count - SessionRegistryLimits.perUser)))
            for old in dropped {
                try await sql.delete(from: "micro_sessions").where("id", .equal, old.entry.id).run()
            }
            return dropped
        }
    }

    public func touch(id: String, now: Int64) async throws {
        try await database.run("note that a session was seen") { sql in
            try await sql.update("micro_sessions").set("last_seen_at", to: now).where("id", .equal, id)
                .where("last_seen_at", .lessThanOrEqual, now - SessionRegistryLimits.touchInterval).run()
        }
    }

    public func sessions(of username: String, now: Int64, idle: Int64, lifetime: Int64) async throws -> [RegisteredSession] {
        try await database.run("list the sessions") { sql in
            try await Self.rows(sql.select().column("*").from("micro_sessions").where("username", .equal, username)
                .where("last_seen_at", .greaterThan, now - idle - SessionRegistryLimits.touchInterval)
                .where("signed_in_at", .greaterThan, now - lifetime)
                .orderBy("signed_in_at", .descending).all())
        }
    }

    public func remove(id: String, of username: String) async throws -> RegisteredSession? {
        try await database.run("end a session") { sql in
            let found = try await Self.rows(
                sql.select().column("*").from("micro_sessions").where("id", .equal, id).where("username", .equal, username).all())
            try await sql.delete(from: "micro_sessions").where("id", .equal, id).where("username", .equal, username).run()
            return found.first
        }
    }

    public func removeAll(of username: String, keeping: String?) async throws -> [RegisteredSession] {
        try await database.run("end the sessions") { sql in
            let all = try await Self.rows(sql.select().column("*").from("micro_sessions").where("username", .equal, username).all())
            let removed = all.filter { $0.entry.id != keeping }
            for session in removed {
                try await sql.delete(from: "micro_sessions").where("id", .equal, session.entry.id).run()
            }
            return removed
        }
    }

    private static func rows(_ rows: [any SQLRow]) throws -> [RegisteredSession] {
        try rows.map { row in
            RegisteredSession(
                entry: SessionEntry(
                    id: try row.decode(column: "id", as: String.self), username: try row.decode(column: "username", as: String.self),
                    browser: try row.decode(column: "browser", as: String.self), userAgent: try row.decode(column: "user_agent", as: String.self),
                    address: try row.decode(column: "address", as: String.self),
                    signedInAt: try row.decode(column: "signed_in_at", as: Int64.self),
                    lastSeenAt: try row.decode(column: "last_seen_at", as: Int64.self)),
                sessionId: try row.decode(column: "session_id", as: String.self),
                expiresAt: try row.decode(column: "expires_at", as: Int64.self),
                signedInMilliseconds: try row.decode(column: "signed_in_at_ms", as: Int64?.self))
        }
    }
}
