import SQLKit

/// Account events in a ``Database`` (SQLite, or PostgreSQL shared by every instance): kept for
/// ``ActivityLogLimits/retention``, and at most ``rowLimit`` rows, pruned as events are added.
public final class DatabaseActivityLog: ActivityLog {
    /// The database.
    public let database: Database
    /// The most events kept: clients who never sign in cannot grow the table past it.
    public let rowLimit: Int
    private let added = Locked(0)

    /// The log over `database`; its table is made by a migration the app runs at start.
    public init(_ database: Database, rowLimit: Int = 1_000_000) {
        self.database = database
        self.rowLimit = rowLimit
    }

    /// Its table, made when the app starts (``Accounts`` adds it to the app's preparations).
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
    ]

    public func record(_ event: ActivityEvent) async throws {
        // Pruning is a sweep every so often, not a cost of every event.
        let prune = added.withLock { (count: inout Int) -> Bool in
            count += 1
            return count % 500 == 1
        }
        let rowLimit = rowLimit
        try await database.run("record an account event") { sql in
            try await sql.insert(into: "micro_activity").columns("username", "event", "at", "address", "browser", "detail")
                .values(
                    SQLBind(event.username), SQLBind(event.event), SQLBind(event.at), SQLBind(event.address), SQLBind(event.browser),
                    SQLBind(event.detail)
                )
                .run()
            guard prune else { return }
            try await sql.delete(from: "micro_activity").where("at", .lessThan, event.at - ActivityLogLimits.retention).run()
            let newest = try await sql.select().column(SQLFunction("max", args: SQLColumn("id")), as: "newest").from("micro_activity")
                .first().flatMap { try $0.decode(column: "newest", as: Int64?.self) }
            if let newest {
                try await sql.delete(from: "micro_activity").where("id", .lessThanOrEqual, newest - Int64(rowLimit)).run()
            }
        }
    }

    public func events(of username: String?, offset: Int, limit: Int) async throws -> [ActivityEvent] {
        try await database.run("read the account events") { sql in
            var query = sql.select().column("*").from("micro_activity")
            if let username { query = query.where("username", .equal, username) }
            return try await query.orderBy("id", .descending).limit(limit).offset(offset).all().map { row in
                ActivityEvent(
                    username: try row.decode(column: "username", as: String.self), event: try row.decode(column: "event", as: String.self),
                    at: try row.decode(column: "at", as: Int64.self), address: try row.decode(column: "address", as: String.self),
                    browser: try row.decode(column: "browser", as: String.self), detail: try row.decode(column: "detail", as: String.self))
            }
        }
    }
}
