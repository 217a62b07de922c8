import MicroAuth
import MicroCore
import SQLKit

/// API tokens in a ``/MicroCore/Database`` (SQLite, or PostgreSQL shared by every instance): a token
/// revoked on one instance is refused on all of them (within the lifetime of their caches of
/// recent look-ups). Only each token's SHA-256 digest is kept, looked up through a unique
/// index. Revoked and expired tokens are deleted as tokens are added: the user's own at each
/// addition, everyone's every so often.
public final class DatabaseApiTokenStore: ApiTokenStore {
    /// The database.
    public let database: Database
    private let added = Locked(0)

    /// The store over `database`; its table is made by a migration the app runs at start.
    public init(_ database: Database) {
        self.database = database
    }

    /// Its table, made when the app starts (``Accounts`` adds it to the app's preparations).
    /// Tokens made before scopes were kept are read-write, as they were.
    public static let migrations = [
        Migration("micro 5 api tokens") { sql in
            try await sql.create(table: "micro_api_tokens").ifNotExists()
                .column("id", type: .text, .primaryKey(autoIncrement: false))
                .column("digest", type: .text, .notNull, .unique)
                .column("username", type: .text, .notNull)
                .column("name", type: .text, .notNull)
                .column("created_at", type: .bigint, .notNull)
                .column("last_used_at", type: .bigint, .notNull)
                .column("expires_at", type: .bigint, .notNull)
                .column("revoked_at", type: .bigint, .notNull)
                .run()
            try await sql.create(index: "micro_api_tokens_by_user").on("micro_api_tokens").column("username").column("created_at").run()
        },
        Migration("micro 12 api token scopes") { sql in
            // Written out, not ScopeName.write: a migration that has run never changes.
            try await sql.alter(table: "micro_api_tokens").column("scopes", type: .text, .notNull, .default("write")).run()
        },
    ]

    public func add(_ token: ApiToken, limit: Int, now: Int64) async throws -> Bool {
        let sweep = added.withLock { (count: inout Int) -> Bool in
            count += 1
            return count % 100 == 1
        }
        return try await database.run("add an API token") { sql in
            if sweep {
                try await Self.deleteDead(sql.delete(from: "micro_api_tokens"), now: now).run()
            } else {
                try await Self.deleteDead(sql.delete(from: "micro_api_tokens").where("username", .equal, token.username), now: now).run()
            }
            try await sql.insert(into: "micro_api_tokens")
                .columns("id", "digest", "username", "name", "created_at", "last_used_at", "expires_at", "revoked_at", "scopes")
                .values(
                    SQLBind(token.id), SQLBind(token.digest), SQLBind(token.username), SQLBind(token.name), SQLBind(token.createdAt),
                    SQLBind(token.lastUsedAt), SQLBind(token.expiresAt), SQLBind(token.revokedAt), SQLBind(token.scopes.joined(separator: " "))
                )
                .run()
            // Counted after the insert, so that two additions at once on two instances cannot
            // both slip under the limit: each sees the other, and the one over it is taken back.
            let live = try await sql.select().column(SQLFunction("count", args: SQLLiteral.all), as: "live").from("micro_api_tokens")
                .where("username", .equal, token.username).where("revoked_at", .equal, 0).where("expires_at", .greaterThan, now)
                .first().map { try $0.decode(column: "live", as: Int.self) } ?? 0
            guard live <= limit else {
                try await sql.delete(from: "micro_api_tokens").where("id", .equal, token.id).run()
                return false
            }
            return true
        }
    }

    public func token(digest: String) async throws -> ApiToken? {
        try await database.run("look up an API token") { sql in
            try await Self.tokens(sql.select().columns(Self.columns).from("micro_api_tokens").where("digest", .equal, digest).limit(1).all()).first
        }
    }

    public func tokens(of username: String, now: Int64) async throws -> [ApiToken] {
        try await database.run("list the API tokens") { sql in
            try await Self.tokens(sql.select().columns(Self.columns).from("micro_api_tokens").where("username", .equal, username)
                .where("revoked_at", .equal, 0).where("expires_at", .greaterThan, now)
                .orderBy("created_at", .descending).orderBy("id").limit(ApiTokenLimits.perUser * 2).all())
        }
    }

    public func liveTokens(now: Int64) async throws -> [ApiToken] {
        try await database.run("list the API tokens") { sql in
            try await Self.tokens(sql.select().columns(Self.columns).from("micro_api_tokens").where("revoked_at", .equal, 0)
                .where("expires_at", .greaterThan, now).orderBy("username").orderBy("created_at", .descending).orderBy("id").all())
        }
    }

    public func revoke(id: String, of username: String, now: Int64) async throws -> ApiToken? {
        try await database.run("revoke an API token") { sql in
            let found = try await Self.tokens(sql.select().columns(Self.columns).from("micro_api_tokens").where("id", .equal, id)
                .where("username", .equal, username).where("revoked_at", .equal, 0).where("expires_at", .greaterThan, now).all())
            guard var token = found.first else { return nil }
            try await sql.update("micro_api_tokens").set("revoked_at", to: now).where("id", .equal, id).where("username", .equal, username).run()
            token.revokedAt = now
            return token
        }
    }

    public func touch(id: String, now: Int64) async throws {
        try await database.run("note that an API token was used") { sql in
            try await sql.update("micro_api_tokens").set("last_used_at", to: now).where("id", .equal, id)
                .where("last_used_at", .lessThanOrEqual, now - ApiTokenLimits.touchInterval).run()
        }
    }

    public func removeAll(of username: String) async throws {
        try await database.run("delete a removed user's API tokens") { sql in
            try await sql.delete(from: "micro_api_tokens").where("username", .equal, username).run()
        }
    }

    /// Every column a token is read from, by name.
    private static let columns = [
        "id", "digest", "username", "name", "created_at", "last_used_at", "expires_at", "revoked_at", "scopes",
    ]

    public func rename(_ username: String, to newName: String) async throws {
        try await database.transaction { sql in
            try await sql.update("micro_api_tokens").set("username", to: SQLBind(newName)).where("username", .equal, username).run()
        }
    }

    /// Revoked or expired at `now`.
    private static func deleteDead(_ query: SQLDeleteBuilder, now: Int64) -> SQLDeleteBuilder {
        query.where(group: { group in group.where("revoked_at", .notEqual, 0).orWhere("expires_at", .lessThanOrEqual, now) })
    }

    private static func tokens(_ rows: [any SQLRow]) throws -> [ApiToken] {
        try rows.map { row in
            ApiToken(
                id: try row.decode(column: "id", as: String.self), digest: try row.decode(column: "digest", as: String.self),
                username: try row.decode(column: "username", as: String.self), name: try row.decode(column: "name", as: String.self),
                createdAt: try row.decode(column: "created_at", as: Int64.self), lastUsedAt: try row.decode(column: "last_used_at", as: Int64.self),
                expiresAt: try row.decode(column: "expires_at", as: Int64.self), revokedAt: try row.decode(column: "revoked_at", as: Int64.self),
                scopes: ApiTokenScopeChoice.stored(try row.decode(column: "scopes", as: String.self)))
        }
    }
}
