import MicroCore
import SQLKit

/// What SCIM provisioning keeps in a ``/MicroCore/Database`` (SQLite, or PostgreSQL shared by every
/// instance): the clients' tokens, as digests looked up through a unique index; the names of
/// the groups a client made that nobody holds yet (a group is a role: one somebody holds needs
/// no row); the clients' own ids; and the users' profiles beside the users table. A token
/// revoked on one instance is refused by every instance at its next request: SCIM requests
/// read the table, which their rate allows.
public final class DatabaseScimStore: Sendable {
    /// The database.
    public let database: Database

    /// The store over `database`; its tables are made by ``migrations``, which the app runs at
    /// start when ``ScimProvisioning`` is on, and `scim-token` runs before it adds one.
    public init(_ database: Database) {
        self.database = database
    }

    /// Its tables.
    public static let migrations = [
        Migration("micro 1 scim tokens and groups") { sql in
            try await sql.create(table: "micro_scim_tokens").ifNotExists()
                .column("id", type: .text, .primaryKey(autoIncrement: false))
                .column("digest", type: .text, .notNull, .unique)
                .column("name", type: .text, .notNull)
                .column("created_at", type: .bigint, .notNull)
                .column("last_used_at", type: .bigint, .notNull)
                .run()
            try await sql.create(table: "micro_scim_groups").ifNotExists()
                .column("name", type: .text, .primaryKey(autoIncrement: false))
                .column("created_at", type: .bigint, .notNull)
                .run()
        },
        Migration("micro 2 scim external ids") { sql in
            try await sql.create(table: "micro_scim_external_ids").ifNotExists()
                .column("kind", type: .text, .notNull)
                .column("id", type: .text, .notNull)
                .column("external_id", type: .text, .notNull)
                .primaryKey("kind", "id")
                .run()
            try await sql.create(index: "micro_scim_external_ids_by_value").on("micro_scim_external_ids").column("kind").column("external_id").run()
        },
        Migration("micro 3 scim profiles") { sql in
            try await sql.create(table: "micro_scim_profiles").ifNotExists()
                .column("username", type: .text, .primaryKey(autoIncrement: false))
                .column("profile", type: .text, .notNull)
                .column("updated_at", type: .bigint, .notNull)
                .run()
        },
        Migration(idsMigration) { sql in
            for ids in [ScimIdTable.users, ScimIdTable.groups] {
                try await sql.create(table: ids.table).ifNotExists()
                    .column("id", type: .text, .primaryKey(autoIncrement: false))
                    .column(ids.column, type: .text, .notNull, .unique)
                    .run()
            }
        },
    ]

    /// The migration that made the tables of the ids that outlive renames (``ScimIdTable``).
    static let idsMigration = "micro 15 scim ids that outlive renames"

    /// Keeps `token`.
    public func add(_ token: ScimToken) async throws {
        try await database.run("add a SCIM token") { sql in
            try await sql.insert(into: "micro_scim_tokens").columns("id", "digest", "name", "created_at", "last_used_at")
                .values(SQLBind(token.id), SQLBind(token.digest), SQLBind(token.name), SQLBind(token.createdAt), SQLBind(token.lastUsedAt))
                .run()
        }
    }

    /// The token whose digest is `digest`; nil when none is.
    public func token(digest: String) async throws -> ScimToken? {
        try await database.run("look up a SCIM token") { sql in
            try await sql.select().column("*").from("micro_scim_tokens").where("digest", .equal, digest).limit(1).all().first.map(Self.token)
        }
    }

    /// Every token, oldest first.
    public func tokens() async throws -> [ScimToken] {
        try await database.run("list the SCIM tokens") { sql in
            try await sql.select().column("*").from("micro_scim_tokens").orderBy("created_at").orderBy("id").all().map(Self.token)
        }
    }

    /// Deletes every token; how many there were.
    @discardableResult
    public func revokeAll() async throws -> Int {
        try await database.run("revoke the SCIM tokens") { sql in
            let count = try await sql.select().column(SQLFunction("count", args: SQLLiteral.all), as: "n").from("micro_scim_tokens")
                .first().map { try $0.decode(column: "n", as: Int.self) } ?? 0
            try await sql.delete(from: "micro_scim_tokens").run()
            return count
        }
    }

    /// Notes that the token `id` was used at `now`, unless that was noted less than a minute before.
    public func touch(id: String, now: Int64) async throws {
        try await database.run("note that a SCIM token was used") { sql in
            try await sql.update("micro_scim_tokens").set("last_used_at", to: now).where("id", .equal, id)
                .where("last_used_at", .lessThanOrEqual, now - 60).run()
        }
    }

    /// Keeps the group `name` while nobody holds it; nothing when it is kept already.
    public func addGroup(_ name: String, now: Int64) async throws {
        try await database.run("add a SCIM group") { sql in
            try await sql.insert(into: "micro_scim_groups").columns("name", "created_at").values(SQLBind(name), SQLBind(now))
                .ignoringConflicts().run()
        }
    }

    /// Whether the group `name` is kept.
    public func hasGroup(_ name: String) async throws -> Bool {
        try await database.run("look up a SCIM group") { sql in
            try await sql.select().column("name").from("micro_scim_groups").where("name", .equal, name).first() != nil
        }
    }

    /// The kept groups, by name.
    public func groups() async throws -> [String] {
        try await database.run("list the SCIM groups") { sql in
            try await sql.select().column("name").from("micro_scim_groups").orderBy("name").limit(10_000).all()
                .map { try $0.decode(column: "name", as: String.self) }
        }
    }

    /// Forgets the group `name`; whether it was kept.
    @discardableResult
    public func removeGroup(_ name: String) async throws -> Bool {
        try await database.run("remove a SCIM group") { sql in
            let kept = try await sql.select().column("name").from("micro_scim_groups").where("name", .equal, name).first() != nil
            try await sql.delete(from: "micro_scim_groups").where("name", .equal, name).run()
            return kept
        }
    }

    /// The client's own id (`externalId`) of the resource `id` of `kind` (`User`, `Group`).
    public func externalId(of kind: String, _ id: String) async throws -> String? {
        try await database.run("read a SCIM external id") { sql in
            try await sql.select().column("external_id").from("micro_scim_external_ids").where("kind", .equal, kind).where("id", .equal, id)
                .first().map { try $0.decode(column: "external_id", as: String.self) }
        }
    }

    /// The resources of `kind` whose `externalId` is `externalId`, by an index.
    public func ids(of kind: String, withExternalId externalId: String) async throws -> [String] {
        try await database.run("find by a SCIM external id") { sql in
            try await sql.select().column("id").from("micro_scim_external_ids").where("kind", .equal, kind)
                .where("external_id", .equal, externalId).orderBy("id").limit(100).all().map { try $0.decode(column: "id", as: String.self) }
        }
    }

    /// The `externalId`s of the resources `ids` of `kind` that have one, by id.
    public func externalIds(of kind: String, _ ids: [String]) async throws -> [String: String] {
        guard !ids.isEmpty else { return [:] }
        return try await database.run("read SCIM external ids") { sql in
            var found: [String: String] = [:]
            for row in try await sql.select().column("id").column("external_id").from("micro_scim_external_ids").where("kind", .equal, kind)
                .where("id", .in, ids).all()
            {
                found[try row.decode(column: "id", as: String.self)] = try row.decode(column: "external_id", as: String.self)
            }
            return found
        }
    }

    /// Moves the client's id, the profile and the SCIM id of the user `username` to `newName`
    /// (the user was renamed), in place of those an earlier holder of `newName` left; inside
    /// any transaction the caller has open on `database`. Nothing of a table SCIM never made.
    static func carry(_ username: String, to newName: String, in database: Database) async throws {
        try await database.transaction { sql in
            let made = try await madeMigrations(in: sql)
            if made.contains("micro 2 scim external ids") {
                try await sql.delete(from: "micro_scim_external_ids").where("kind", .equal, "User").where("id", .equal, newName).run()
                try await sql.update("micro_scim_external_ids").set("id", to: SQLBind(newName))
                    .where("kind", .equal, "User").where("id", .equal, username).run()
            }
            if made.contains("micro 3 scim profiles") {
                try await sql.delete(from: "micro_scim_profiles").where("username", .equal, newName).run()
                try await sql.update("micro_scim_profiles").set("username", to: SQLBind(newName)).where("username", .equal, username).run()
            }
            if made.contains(idsMigration) { try await ScimIdTable.users.carry(username, to: newName, in: sql) }
        }
    }

    /// Deletes the client's id, the profile and the SCIM id SCIM kept for `username` (removed,
    /// or about to be added anew), so that a later user of the name inherits none of them.
    /// Nothing of a table SCIM never made.
    static func forget(_ username: String, in database: Database) async throws {
        try await database.transaction { sql in
            let made = try await madeMigrations(in: sql)
            if made.contains("micro 2 scim external ids") {
                try await sql.delete(from: "micro_scim_external_ids").where("kind", .equal, "User").where("id", .equal, username).run()
            }
            if made.contains("micro 3 scim profiles") {
                try await sql.delete(from: "micro_scim_profiles").where("username", .equal, username).run()
            }
            if made.contains(idsMigration) { try await ScimIdTable.users.forget(username, in: sql) }
        }
    }

    /// Which of SCIM's migrations `sql` has run: an app without SCIM has none of its tables.
    private static func madeMigrations(in sql: any SQLDatabase) async throws -> Set<String> {
        let names = ["micro 2 scim external ids", "micro 3 scim profiles", idsMigration]
        return Set(try await sql.select().column("name").from("micro_migrations").where("name", .in, names).all()
            .map { try $0.decode(column: "name", as: String.self) })
    }

    /// Keeps `externalId` for the resource (nil: forgets it).
    public func setExternalId(_ externalId: String?, of kind: String, _ id: String) async throws {
        try await database.run("set a SCIM external id") { sql in
            try await sql.delete(from: "micro_scim_external_ids").where("kind", .equal, kind).where("id", .equal, id).run()
            if let externalId {
                try await sql.insert(into: "micro_scim_external_ids").columns("kind", "id", "external_id")
                    .values(SQLBind(kind), SQLBind(id), SQLBind(externalId)).run()
            }
        }
    }

    private static func token(_ row: any SQLRow) throws -> ScimToken {
        ScimToken(
            id: try row.decode(column: "id", as: String.self), digest: try row.decode(column: "digest", as: String.self),
            name: try row.decode(column: "name", as: String.self), createdAt: try row.decode(column: "created_at", as: Int64.self),
            lastUsedAt: try row.decode(column: "last_used_at", as: Int64.self))
    }
}
