import Crypto
import MicroCore
import SQLKit

/// Passkeys in a ``/MicroCore/Database`` (SQLite, or PostgreSQL shared by every instance), one
/// table for both: each passkey by its credential id, and the digests of the challenges spent
/// in the last few minutes, so that an answer works once on every instance.
public final class PasskeyStore: Sendable {
    /// The database.
    public let database: Database
    private let spent = Locked(0)

    /// The store over `database`; its tables are made by ``migrations`` when the app starts.
    public init(_ database: Database) {
        self.database = database
    }

    /// Its tables.
    public static let migrations = [
        Migration("micro 9 passkeys") { sql in
            try await sql.create(table: "micro_passkeys").ifNotExists()
                .column("credential_id", type: .text, .primaryKey(autoIncrement: false))
                .column("username", type: .text, .notNull)
                .column("user_handle", type: .text, .notNull)
                .column("name", type: .text, .notNull)
                .column("algorithm", type: .int, .notNull)
                .column("public_key", type: .text, .notNull)
                .column("sign_count", type: .bigint, .notNull)
                .column("backup_eligible", type: .int, .notNull)
                .column("created_at", type: .bigint, .notNull)
                .column("last_used_at", type: .bigint, .notNull)
                .run()
            try await sql.create(index: "micro_passkeys_by_user").on("micro_passkeys").column("username").column("created_at").run()
            try await sql.create(table: "micro_passkey_spent_challenges").ifNotExists()
                .column("digest", type: .text, .primaryKey(autoIncrement: false))
                .column("expires_at", type: .bigint, .notNull)
                .run()
        },
        // Where each was added from, so that its owner can spot one they did not add; passkeys
        // stored before have none.
        Migration("micro 10 passkeys added from") { sql in
            try await sql.alter(table: "micro_passkeys").column("added_address", type: .text, .notNull, .default("")).run()
            try await sql.alter(table: "micro_passkeys").column("added_user_agent", type: .text, .notNull, .default("")).run()
        },
    ]

    /// Adds `passkey` unless its user already has `limit`, or its credential id is stored
    /// already (for anyone).
    ///
    /// The count and the insert are one transaction, and additions take turns: of two at once
    /// (on two instances) for the last free place, one has it and the other finds the user
    /// full, where counting after the insert would let both find too many and both give up.
    /// SQLite's write transactions take turns already; on PostgreSQL the table is locked
    /// against other writers (readers go on) for the count and the insert.
    public func add(_ passkey: Passkey, limit: Int) async throws -> AddResult {
        try await database.transaction { sql in
            if sql.dialect.name == "postgresql" {
                try await sql.raw("LOCK TABLE micro_passkeys IN SHARE ROW EXCLUSIVE MODE").run()
            }
            if try await Self.exists(sql, credentialId: passkey.credentialId) { return .credentialTaken }
            guard try await Self.count(sql, of: passkey.username) < limit else { return .full }
            try await sql.insert(into: "micro_passkeys")
                .columns(Self.columns)
                .values(
                    SQLBind(Base64Url.encode(passkey.credentialId)), SQLBind(passkey.username), SQLBind(Base64Url.encode(passkey.userHandle)),
                    SQLBind(passkey.name), SQLBind(Int(passkey.publicKey.algorithm.rawValue)), SQLBind(Base64Url.encode(passkey.publicKey.bytes)),
                    SQLBind(Int64(passkey.signCount)), SQLBind(passkey.backupEligible ? 1 : 0), SQLBind(passkey.createdAt),
                    SQLBind(passkey.lastUsedAt), SQLBind(passkey.addedFromAddress), SQLBind(passkey.addedFromUserAgent)
                )
                .run()
            return .added
        }
    }

    /// What ``add(_:limit:)`` came to.
    public enum AddResult: Sendable, Equatable {
        /// Stored.
        case added
        /// The user has as many as the limit.
        case full
        /// A passkey of this credential id is stored already.
        case credentialTaken
    }

    /// The passkey of `credentialId`, whoever's it is.
    public func passkey(credentialId: [UInt8]) async throws -> Passkey? {
        try await database.run("look up a passkey") { sql in
            try await Self.passkeys(sql.select().columns(Self.columns).from("micro_passkeys")
                .where("credential_id", .equal, Base64Url.encode(credentialId)).limit(1).all()).first
        }
    }

    /// The passkeys of `username`, oldest first.
    public func passkeys(of username: String) async throws -> [Passkey] {
        try await database.run("list a user's passkeys") { sql in
            try await Self.passkeys(sql.select().columns(Self.columns).from("micro_passkeys").where("username", .equal, username)
                .orderBy("created_at").orderBy("credential_id").all())
        }
    }

    /// The user handle of `username`'s passkeys, to give a new one the same; nil when they
    /// have none.
    public func userHandle(of username: String) async throws -> [UInt8]? {
        try await database.run("look up a user handle") { sql in
            try await sql.select().column("user_handle").from("micro_passkeys").where("username", .equal, username).limit(1).first()
                .flatMap { Base64Url.decode(try $0.decode(column: "user_handle", as: String.self)) }
        }
    }

    /// How many passkeys each user has, for the users page; users with none are left out.
    public func counts() async throws -> [String: Int] {
        try await database.run("count passkeys") { sql in
            let rows = try await sql.select().column("username").column(SQLFunction("count", args: SQLLiteral.all), as: "n")
                .from("micro_passkeys").groupBy("username").all()
            var counts: [String: Int] = [:]
            for row in rows { counts[try row.decode(column: "username", as: String.self)] = try row.decode(column: "n", as: Int.self) }
            return counts
        }
    }

    /// Renames `username`'s passkey of `credentialId`; whether there was one.
    public func rename(credentialId: [UInt8], of username: String, to name: String) async throws -> Bool {
        try await database.run("rename a passkey") { sql in
            try await !sql.update("micro_passkeys").set("name", to: SQLBind(name)).where("credential_id", .equal, Base64Url.encode(credentialId))
                .where("username", .equal, username).returning("credential_id").all().isEmpty
        }
    }

    /// Removes `username`'s passkey of `credentialId`; the passkey, when there was one.
    public func remove(credentialId: [UInt8], of username: String) async throws -> Passkey? {
        try await database.run("remove a passkey") { sql in
            try await Self.passkeys(sql.delete(from: "micro_passkeys").where("credential_id", .equal, Base64Url.encode(credentialId))
                .where("username", .equal, username).returning(Self.columns.map { SQLIdentifier($0) }).all()).first
        }
    }

    /// Moves every passkey of `username` to `newName` (the user was renamed); inside any
    /// transaction the caller has open on the database.
    public func carry(_ username: String, to newName: String) async throws {
        try await database.transaction { sql in
            try await sql.update("micro_passkeys").set("username", to: SQLBind(newName)).where("username", .equal, username).run()
        }
    }

    /// Removes every passkey of `username` (a removed user, or the admin's removal); how many.
    @discardableResult
    public func removeAll(of username: String) async throws -> Int {
        try await database.run("remove a user's passkeys") { sql in
            try await sql.delete(from: "micro_passkeys").where("username", .equal, username).returning("credential_id").all().count
        }
    }

    /// Notes a sign-in by the passkey of `credentialId`: its counter moves from `previous` to
    /// `signCount`. One conditional update, so that of two instances checking answers with the
    /// same counter at once only one gets true.
    public func use(credentialId: [UInt8], previous: UInt32, signCount: UInt32, now: Int64) async throws -> Bool {
        try await database.run("note a passkey sign-in") { sql in
            try await !sql.update("micro_passkeys").set("sign_count", to: SQLBind(Int64(signCount))).set("last_used_at", to: SQLBind(now))
                .where("credential_id", .equal, Base64Url.encode(credentialId)).where("sign_count", .equal, SQLBind(Int64(previous)))
                .returning("credential_id").all().isEmpty
        }
    }

    /// Spends `challenge`: true the first time on any instance, false after. Kept a minute past
    /// its expiry (for an instance whose clock is behind this one's), then deleted, every so
    /// often as challenges are spent.
    public func spend(_ challenge: PasskeyChallenge, now: Int64) async throws -> Bool {
        let sweep = spent.withLock { (count: inout Int) -> Bool in
            count += 1
            return count % 50 == 1
        }
        let digest = Base64Url.encode(Array(SHA256.hash(data: challenge.bytes)))
        return try await database.run("spend a passkey challenge") { sql in
            if sweep { try await sql.delete(from: "micro_passkey_spent_challenges").where("expires_at", .lessThanOrEqual, SQLBind(now - 60)).run() }
            return try await !sql.insert(into: "micro_passkey_spent_challenges").columns("digest", "expires_at")
                .values(SQLBind(digest), SQLBind(challenge.issuedAt + PasskeyChallenge.lifetime))
                .ignoringConflicts(with: ["digest"]).returning("digest").all().isEmpty
        }
    }

    /// The columns a passkey is read from, named rather than `*`: a SQLite connection that read
    /// the schema before a migration added one would list the old columns for `*` once.
    private static let columns = [
        "credential_id", "username", "user_handle", "name", "algorithm", "public_key", "sign_count", "backup_eligible", "created_at",
        "last_used_at", "added_address", "added_user_agent",
    ]

    private static func exists(_ sql: any SQLDatabase, credentialId: [UInt8]) async throws -> Bool {
        try await sql.select().column("credential_id").from("micro_passkeys")
            .where("credential_id", .equal, Base64Url.encode(credentialId)).limit(1).first() != nil
    }

    private static func count(_ sql: any SQLDatabase, of username: String) async throws -> Int {
        try await sql.select().column(SQLFunction("count", args: SQLLiteral.all), as: "n").from("micro_passkeys")
            .where("username", .equal, username).first()?.decode(column: "n", as: Int.self) ?? 0
    }

    /// The rows as passkeys; a row whose encodings were spoiled by hand is left out (it still
    /// counts towards its user's limit, and goes with them).
    private static func passkeys(_ rows: [any SQLRow]) throws -> [Passkey] {
        try rows.compactMap { row in
            guard let credentialId = Base64Url.decode(try row.decode(column: "credential_id", as: String.self)),
                let userHandle = Base64Url.decode(try row.decode(column: "user_handle", as: String.self)),
                let algorithm = PasskeyAlgorithm(rawValue: Int32(clamping: try row.decode(column: "algorithm", as: Int.self))),
                let key = Base64Url.decode(try row.decode(column: "public_key", as: String.self)),
                let signCount = UInt32(exactly: try row.decode(column: "sign_count", as: Int64.self))
            else { return nil }
            return Passkey(
                credentialId: credentialId, username: try row.decode(column: "username", as: String.self), userHandle: userHandle,
                name: try row.decode(column: "name", as: String.self), publicKey: PasskeyPublicKey(algorithm: algorithm, bytes: key),
                signCount: signCount, backupEligible: try row.decode(column: "backup_eligible", as: Int.self) != 0, createdAt: try row.decode(column: "created_at", as: Int64.self),
                lastUsedAt: try row.decode(column: "last_used_at", as: Int64.self),
                addedFromAddress: try row.decode(column: "added_address", as: String.self),
                addedFromUserAgent: try row.decode(column: "added_user_agent", as: String.self))
        }
    }
}
