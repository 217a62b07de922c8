import Logging
import MicroCore
import SQLKit

/// App events in a ``/MicroCore/Database`` (SQLite, or PostgreSQL shared by every instance), in the table
/// `micro_app_events`: kept until the app says otherwise, by ``retention`` or ``rowLimit``;
/// by default both are off, and the record is whole.
public final class DatabaseAppEventLog: AppEventLog {
    /// The database.
    public let database: Database
    /// How long an event is kept; nil (the default) for ever.
    public let retention: Duration?
    /// The most events kept, the oldest dropped first; nil (the default) for no limit.
    public let rowLimit: Int?
    private let added = Locked(0)

    /// The log over `database`; its table is made by a migration the app runs at start.
    public init(_ database: Database, retention: Duration? = nil, rowLimit: Int? = nil) {
        self.database = database
        self.retention = retention
        self.rowLimit = rowLimit.map { max(1, $0) }
    }

    static let table = "micro_app_events"

    /// Its table, made when the app starts (``Accounts`` adds it to the app's preparations).
    public static let migrations = [
        Migration("micro 8 app events") { sql in
            try await sql.create(table: "micro_app_events").ifNotExists()
                .column("id", type: .bigint, .primaryKey(autoIncrement: true))
                .column("username", type: .text, .notNull)
                .column("kind", type: .text, .notNull)
                .column("subject", type: .text, .notNull)
                .column("detail", type: .text, .notNull)
                .column("at", type: .bigint, .notNull)
                .column("address", type: .text, .notNull)
                .column("browser", type: .text, .notNull)
                .run()
            try await sql.create(index: "micro_app_events_by_kind").on("micro_app_events").column("kind").column("id").run()
            try await sql.create(index: "micro_app_events_by_subject").on("micro_app_events").column("subject").column("id").run()
        }
    ]

    /// Writes `event`; every so often, when the app gave a retention or a row limit, drops
    /// what is beyond them.
    public func record(_ event: AppEvent) async throws {
        // Pruning, when the app asked for it, is a sweep every so often, not a cost of every event.
        let prune = (retention != nil || rowLimit != nil) && added.withLock { (count: inout Int) -> Bool in
            count += 1
            return count % 500 == 1
        }
        try await database.run("record an app event") { sql in
            try await sql.insert(into: Self.table).columns("username", "kind", "subject", "detail", "at", "address", "browser")
                .values(
                    SQLBind(event.username), SQLBind(event.kind), SQLBind(event.subject), SQLBind(event.detail), SQLBind(event.at),
                    SQLBind(event.address), SQLBind(event.browser)
                )
                .run()
            guard prune else { return }
            if let retention {
                try await sql.delete(from: Self.table).where("at", .lessThan, event.at - retention.components.seconds).run()
            }
            if let rowLimit,
                let newest = try await sql.select().column(SQLFunction("max", args: SQLColumn("id")), as: "newest").from(Self.table)
                    .first().flatMap({ try $0.decode(column: "newest", as: Int64?.self) })
            {
                try await sql.delete(from: Self.table).where("id", .lessThanOrEqual, newest - Int64(rowLimit)).run()
            }
        }
    }

    /// The newest events of `kind` and `subject` when given, newest first.
    public func events(kind: String?, subject: String?, offset: Int, limit: Int) async throws -> [AppEvent] {
        try await database.run("read the app events") { sql in
            var query = sql.select().columns("username", "kind", "subject", "detail", "at", "address", "browser").from(Self.table)
            if let kind { query = query.where("kind", .equal, kind) }
            if let subject { query = query.where("subject", .equal, subject) }
            return try await query.orderBy("id", .descending).limit(max(0, limit)).offset(max(0, offset)).all().map { row in
                AppEvent(
                    username: try row.decode(column: "username", as: String.self), kind: try row.decode(column: "kind", as: String.self),
                    subject: try row.decode(column: "subject", as: String.self), detail: try row.decode(column: "detail", as: String.self),
                    at: try row.decode(column: "at", as: Int64.self), address: try row.decode(column: "address", as: String.self),
                    browser: try row.decode(column: "browser", as: String.self))
            }
        }
    }
}
