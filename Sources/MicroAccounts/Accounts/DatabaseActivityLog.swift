import MicroAuth
import MicroCore
import SQLKit

/// Account events in a ``/MicroCore/Database`` (SQLite, or PostgreSQL shared by every instance): kept for
/// ``ActivityLogLimits/retention``, and at most ``rowLimit`` rows, pruned as events are added.
/// Failed sign-ins under names that are no user have a table of their own, of at most
/// ``unknownRowLimit`` rows: however many addresses send them, they cannot push the accounts'
/// events out.
public final class DatabaseActivityLog: ActivityLog {
    /// The database.
    public let database: Database
    /// The most events of accounts kept.
    public let rowLimit: Int
    /// The most failed sign-ins under names that are no user kept.
    public let unknownRowLimit: Int
    private let added = Locked(0)
    private let unknownAdded = Locked(0)

    /// The log over `database`; its tables are made by migrations the app runs at start.
    public init(_ database: Database, rowLimit: Int = 1_000_000, unknownRowLimit: Int = 100_000) {
        self.database = database
        self.rowLimit = rowLimit
        self.unknownRowLimit = unknownRowLimit
    }

    static let accountsTable = "micro_activity"
    static let unknownTable = "micro_unknown_user_activity"

    /// Its tables, made when the app starts (``Accounts`` adds them to the app's preparations).
    /// Their names are written out: a migration that has run never changes.
    public static let migrations = [
        Migration("micro 3 activity log") { sql in
            try await sql.create(table: "micro_activity").ifNotExists()
                .column("id", type: .bigint, .primaryKey(autoIncrement: true))
                .column("username", type: .text, .notNull)
                .column("event", type: .text, .notNull)
                .column("at", type: .bigint, .notNull)
                .column("address", type: .text, .notNull)
                .column("browser", type: .text, .notNull)
                .column("detail", type: .text, .notNull)
                .run()
            try await sql.create(index: "micro_activity_by_user").on("micro_activity").column("username").column("id").run()
        },
        Migration("micro 7 activity of ended accounts, and of unknown users apart") { sql in
            try await sql.alter(table: "micro_activity").column("account_ended_at", type: .bigint, .notNull, .default(0)).run()
            try await sql.create(table: "micro_unknown_user_activity").ifNotExists()
                .column("id", type: .bigint, .primaryKey(autoIncrement: true))
                .column("username", type: .text, .notNull)
                .column("event", type: .text, .notNull)
                .column("at", type: .bigint, .notNull)
                .column("address", type: .text, .notNull)
                .column("browser", type: .text, .notNull)
                .column("detail", type: .text, .notNull)
                .column("account_ended_at", type: .bigint, .notNull, .default(0))
                .run()
            let columns = ["username", "event", "at", "address", "browser", "detail"]
            try await sql.insert(into: "micro_unknown_user_activity").columns(columns)
                .select { $0.columns(columns).from("micro_activity").where("username", .equal, ActivityEvent.unknownUser).orderBy("id") }.run()
            try await sql.delete(from: "micro_activity").where("username", .equal, ActivityEvent.unknownUser).run()
        },
    ]

    public func record(_ event: ActivityEvent) async throws {
        let unknown = event.username == ActivityEvent.unknownUser
        let (table, rowLimit) = unknown ? (Self.unknownTable, unknownRowLimit) : (Self.accountsTable, self.rowLimit)
        // Pruning is a sweep every so often, not a cost of every event.
        let prune = (unknown ? unknownAdded : added).withLock { (count: inout Int) -> Bool in
            count += 1
            return count % 500 == 1
        }
        try await database.run("record an account event") { sql in
            try await sql.insert(into: table).columns("username", "event", "at", "address", "browser", "detail")
                .values(
                    SQLBind(event.username), SQLBind(event.event), SQLBind(event.at), SQLBind(event.address), SQLBind(event.browser),
                    SQLBind(event.detail)
                )
                .run()
            guard prune else { return }
            try await sql.delete(from: table).where("at", .lessThan, event.at - ActivityLogLimits.retentionSeconds).run()
            let newest = try await sql.select().column(SQLFunction("max", args: SQLColumn("id")), as: "newest").from(table)
                .first().flatMap { try $0.decode(column: "newest", as: Int64?.self) }
            if let newest {
                try await sql.delete(from: table).where("id", .lessThanOrEqual, newest - Int64(rowLimit)).run()
            }
        }
    }

    public func events(of username: String?, offset: Int, limit: Int) async throws -> [ActivityEvent] {
        try await database.run("read the account events") { sql in
            // Named, not `*`: a connection that read the schema before a migration added a column
            // would expand `*` as it was.
            var query = sql.select().columns("username", "event", "at", "address", "browser", "detail", "account_ended_at")
                .from(username == ActivityEvent.unknownUser ? Self.unknownTable : Self.accountsTable)
            if let username { query = query.where("username", .equal, username) }
            return try await query.orderBy("id", .descending).limit(limit).offset(offset).all().map { row in
                let ended = try row.decode(column: "account_ended_at", as: Int64.self)
                return ActivityEvent(
                    username: try row.decode(column: "username", as: String.self), event: try row.decode(column: "event", as: String.self),
                    at: try row.decode(column: "at", as: Int64.self), address: try row.decode(column: "address", as: String.self),
                    browser: try row.decode(column: "browser", as: String.self), detail: try row.decode(column: "detail", as: String.self),
                    accountEndedAt: ended == 0 ? nil : ended)
            }
        }
    }

    public func endAccount(of username: String, at: Int64) async throws {
        try await database.run("mark an ended account's events") { sql in
            try await sql.update(Self.accountsTable).set("account_ended_at", to: SQLBind(max(1, at)))
                .where("username", .equal, username).where("account_ended_at", .equal, 0).run()
        }
    }

    public func rename(_ username: String, to newName: String) async throws {
        try await database.transaction { sql in
            try await sql.update(Self.accountsTable).set("username", to: SQLBind(newName))
                .where("username", .equal, username).where("account_ended_at", .equal, 0).run()
        }
    }
}
