import Foundation
import Logging
import SQLKit

/// The app's database: a SQLite file (one instance) or PostgreSQL (several, through
/// `MicroPostgres`), with one SQL builder for both, sql-kit's, whose values are always bound.
///
/// ```swift
/// let database = try await Database.sqlite(path: "notes.db")
/// database.migrations.add("1 create notes") { sql in
///     try await sql.create(table: "notes").ifNotExists()
///         .column("id", type: .bigint, .primaryKey)
///         .column("title", type: .text, .notNull)
///         .run()
/// }
/// app.use(database)                                 // migrates when the app starts
/// app.get("/notes/:id") { request in
///     try await request.database.sql.select().column("title").from("notes")
///         .where("id", .equal, request.params["id"]).first(decoding: Title.self)
/// }
/// ```
///
/// While the database is out of reach (a SQLite file locked by another writer for longer than
/// its busy timeout, PostgreSQL down), statements throw a 503 ``HttpError``; they work again by
/// themselves once it is back.
public final class Database: Sendable, CustomStringConvertible {
    /// The connections, for any statement: `try await database.sql.select()...`.
    public let sql: any SQLDatabase
    /// The migrations ``migrate()`` runs; an app adds its own before it starts.
    public let migrations = Migrations()
    /// What the database is, and what is its own.
    public let backend: any DatabaseBackend

    /// The database `backend` reaches.
    public init(_ backend: some DatabaseBackend) {
        self.backend = backend
        sql = WordedSqlDatabase(inner: backend.sql, backend: backend)
    }

    /// Where the database is: a file's path, a URL without its password.
    public var description: String { backend.description }

    /// Whether it is SQLite (`sqlite`) or PostgreSQL (`postgresql`): sql-kit's dialect name,
    /// for the rare statement the two write differently.
    public var dialectName: String { sql.dialect.name }

    /// Runs every migration of ``migrations`` not yet recorded in `micro_migrations`, in order,
    /// each in a transaction of its own. A failure stops there: the error names the migration,
    /// and what ran before it stays.
    public func migrate() async throws(ConfigurationError) {
        try await migrate(migrations.all)
    }

    /// Runs those of `list` not yet recorded: a store's own tables (Micro's stores bring theirs
    /// this way), apart from the app's ``migrations``.
    public func migrate(_ list: [Migration]) async throws(ConfigurationError) {
        let names = list.map(\.name)
        if let repeated = names.enumerated().first(where: { names[..<$0.offset].contains($0.element) })?.element {
            throw ConfigurationError("\(self): the migration '\(repeated)' is declared twice.")
        }
        do {
            try await sql.create(table: "micro_migrations").ifNotExists()
                .column("name", type: .text, .primaryKey(autoIncrement: false))
                .column("applied_at", type: .bigint, .notNull)
                .run()
        } catch {
            throw ConfigurationError("\(self): cannot create the table micro_migrations: \(Self.words(error))")
        }
        for migration in list {
            do {
                try await run(migration)
            } catch {
                throw ConfigurationError("\(self): the migration '\(migration.name)' failed: \(Self.words(error))")
            }
        }
        await backend.migrated()
    }

    /// Runs `migration` in a transaction unless it was recorded, by this or another instance.
    private func run(_ migration: Migration) async throws {
        let backend = backend
        try await backend.withSession { session in
            let sql = WordedSqlDatabase(inner: session, backend: backend)
            try await backend.beginMigration(on: session)
            do {
                let done = try await sql.select().column("name").from("micro_migrations")
                    .where("name", .equal, migration.name).first()
                if done == nil {
                    try await migration.up(sql)
                    try await sql.insert(into: "micro_migrations").columns("name", "applied_at")
                        .values(SQLBind(migration.name), SQLBind(Int64(Date().timeIntervalSince1970)))
                        .run()
                }
                try await sql.raw("COMMIT").run()
            } catch {
                try? await session.raw("ROLLBACK").run()
                throw error
            }
        }
    }

    /// Runs `work` with ``sql``, or inside the ``transaction(_:)`` this task has open on this
    /// database, so that a store's statements made in one are part of it on PostgreSQL as on
    /// SQLite; an error it throws that is not already worded (an ``HttpError`` or
    /// ``DatabaseError``) is worded as a failure to do `what`.
    public func run<T: Sendable>(_ what: String, _ work: (any SQLDatabase) async throws -> T) async throws -> T {
        let open = Self.openTransaction.flatMap { $0.database == ObjectIdentifier(self) && $0.isOpen.withLock({ $0 }) ? $0.sql : nil }
        do {
            return try await work(open ?? sql)
        } catch let error as HttpError {
            throw error
        } catch let error as DatabaseError {
            throw error
        } catch {
            throw backend.failure(error, doing: what)
        }
    }

    /// Closes the connections.
    public func shutdown() async {
        await backend.shutdown()
    }

    /// An error's own words, without a type's name.
    package static func words(_ error: any Error) -> String {
        if let error = error as? HttpError { return error.message }
        if let error = error as? ConfigurationError { return error.message }
        return "\(error)"
    }
}
