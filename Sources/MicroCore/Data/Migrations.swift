import SQLKit

/// The migrations an app declares, in the order they run.
///
/// ```swift
/// database.migrations.add("1 create notes") { sql in
///     try await sql.create(table: "notes")
///         .column("id", type: .bigint, .primaryKey)
///         .column("title", type: .text, .notNull)
///         .run()
/// }
/// ```
public final class Migrations: Sendable {
    private let list = Locked<[Migration]>([])

    init() {}

    /// Adds a migration run after those added before it. A name already added is a mistake
    /// the app reports when it starts.
    public func add(_ name: String, up: @escaping @Sendable (any SQLDatabase) async throws -> Void) {
        list.withLock { $0.append(Migration(name, up: up)) }
    }

    /// Every migration, in order.
    public var all: [Migration] { list.withLock { $0 } }
}
