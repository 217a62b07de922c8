import MicroAuth
import MicroCore
import SQLKit

/// Each user's second factor in a ``Database`` (SQLite, or PostgreSQL shared by every
/// instance): the TOTP secret sealed under the ``DataKey`` (never in the clear), the last step
/// used (so a code is good once, on every instance), and the recovery codes as digests. A row
/// in `micro_two_factor` means it is on.
final class TwoFactorStore: Sendable {
    let database: Database

    init(_ database: Database) {
        self.database = database
    }

    /// What is kept of a user whose second factor is on.
    struct Record: Sendable {
        let sealedSecret: String
        let lastStep: Int64
        /// The name the secret is sealed under (``TwoFactorService/context(of:)``): the user's
        /// own, or the one they had when they turned it on, before a rename.
        let boundName: String
    }

    /// Its tables, made when the app starts.
    static let migrations = [
        Migration("micro 4 two-factor") { sql in
            try await sql.create(table: "micro_two_factor").ifNotExists()
                .column("username", type: .text, .primaryKey(autoIncrement: false))
                .column("sealed_secret", type: .text, .notNull)
                .column("last_step", type: .bigint, .notNull)
                .column("enabled_at", type: .bigint, .notNull)
                .run()
            try await sql.create(table: "micro_recovery_codes").ifNotExists()
                .column("username", type: .text, .notNull)
                .column("digest", type: .text, .notNull)
                .run()
            try await sql.create(index: "micro_recovery_codes_by_user").unique().on("micro_recovery_codes").column("username").column("digest")
                .run()
        },
        // The secret is sealed with the username as associated data, and the recovery codes'
        // digests are keyed by it, so that a row moved to another user opens nothing. A rename
        // cannot seal them again: the data key may be out of reach (a command run without
        // MICRO_DATA_KEY), and the codes themselves are known only as digests. So a renamed
        // user's rows keep the name they were bound to here (NULL: the row's own username),
        // which reading uses; turning it on again, or new codes, bind to the current name.
        Migration("micro 14 two-factor bound names") { sql in
            try await sql.alter(table: "micro_two_factor").column("bound_name", type: .text).run()
            try await sql.alter(table: "micro_recovery_codes").column("bound_name", type: .text).run()
        },
    ]

    /// The record of `username` (its ``Username/key(_:)``), nil when two-factor is off.
    func record(of username: String) async throws -> Record? {
        try await database.run("read a user's second factor") { sql in
            guard let row = try await sql.select().column("sealed_secret").column("last_step").column("bound_name").from("micro_two_factor")
                .where("username", .equal, username).first()
            else { return nil }
            return Record(
                sealedSecret: try row.decode(column: "sealed_secret", as: String.self), lastStep: try row.decode(column: "last_step", as: Int64.self),
                boundName: try row.decode(column: "bound_name", as: String?.self) ?? username)
        }
    }

    /// Turns it on for `username`: the sealed secret, the step that confirmed it (used), and
    /// new recovery codes' digests. The codes go in first: a user is never on without them.
    func enable(_ username: String, sealedSecret: String, usedStep: Int64, codeDigests: [String], now: Int64) async throws {
        try await replaceCodes(of: username, with: codeDigests)
        try await database.run("turn a user's second factor on") { sql in
            try await sql.delete(from: "micro_two_factor").where("username", .equal, username).run()
            try await sql.insert(into: "micro_two_factor").columns("username", "sealed_secret", "last_step", "enabled_at")
                .values(SQLBind(username), SQLBind(sealedSecret), SQLBind(usedStep), SQLBind(now)).run()
        }
    }

    /// Turns it off for `username`; whether it was on.
    @discardableResult
    func disable(_ username: String) async throws -> Bool {
        try await database.run("turn a user's second factor off") { sql in
            let removed = try await sql.delete(from: "micro_two_factor").where("username", .equal, username).returning("username").all()
            try await sql.delete(from: "micro_recovery_codes").where("username", .equal, username).run()
            return !removed.isEmpty
        }
    }

    /// Takes `step` as used for `username` when no later or equal step was: one conditional
    /// update, so of two instances given the same code at once only one gets true.
    func use(step: Int64, of username: String) async throws -> Bool {
        try await database.run("note a used two-factor code") { sql in
            let updated = try await sql.update("micro_two_factor").set("last_step", to: SQLBind(step))
                .where("username", .equal, username).where("last_step", .lessThan, SQLBind(step))
                .returning("username").all()
            return !updated.isEmpty
        }
    }

    /// The recovery codes of `username`, replaced by those of `digests`.
    func replaceCodes(of username: String, with digests: [String]) async throws {
        try await database.run("store recovery codes") { sql in
            try await sql.delete(from: "micro_recovery_codes").where("username", .equal, username).run()
            for digest in digests {
                try await sql.insert(into: "micro_recovery_codes").columns("username", "digest").values(SQLBind(username), SQLBind(digest)).run()
            }
        }
    }

    /// Takes the recovery code of `digest` of `username`, when it is one of theirs: deleted in
    /// one statement, so that it works once, on every instance.
    func useCode(digest: String, of username: String) async throws -> Bool {
        try await database.run("use a recovery code") { sql in
            let deleted = try await sql.delete(from: "micro_recovery_codes").where("username", .equal, username).where("digest", .equal, digest)
                .returning("username").all()
            return !deleted.isEmpty
        }
    }

    /// The names the recovery codes of `username` are keyed by: theirs, or the one they had
    /// when the codes were made, before a rename.
    func codeBindings(of username: String) async throws -> [String] {
        try await database.run("read recovery codes") { sql in
            let rows = try await sql.select().distinct().column("bound_name").from("micro_recovery_codes").where("username", .equal, username).all()
            return try rows.map { try $0.decode(column: "bound_name", as: String?.self) ?? username }
        }
    }

    /// Moves the second factor of `username` to `newName`, each row keeping the name its
    /// secret or digest is bound to; inside any transaction the caller has open on the database.
    func carry(_ username: String, to newName: String) async throws {
        try await database.transaction { sql in
            for table in ["micro_two_factor", "micro_recovery_codes"] {
                try await sql.update(table).set("bound_name", to: SQLFunction("coalesce", args: SQLColumn("bound_name"), SQLColumn("username")))
                    .set("username", to: SQLBind(newName)).where("username", .equal, username).run()
            }
        }
    }

    /// How many recovery codes `username` has left.
    func codesLeft(of username: String) async throws -> Int {
        try await database.run("count recovery codes") { sql in
            try await sql.select().column(SQLFunction("count", args: SQLLiteral.all), as: "n").from("micro_recovery_codes")
                .where("username", .equal, username).first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    /// The users who have it on (their ``Username/key(_:)``), for the admin's users page.
    func enabledUsers() async throws -> Set<String> {
        try await database.run("list users with a second factor") { sql in
            Set(try await sql.select().column("username").from("micro_two_factor").all(decodingColumn: "username", as: String.self))
        }
    }

    /// Whether any user has it on.
    func anyEnabled() async throws -> Bool {
        try await database.run("look for users with a second factor") { sql in
            try await sql.select().column("username").from("micro_two_factor").limit(1).first() != nil
        }
    }
}
