import SQLKit

/// One change to a database's tables, run once: its name is recorded in `micro_migrations`.
public struct Migration: Sendable {
    /// What it does, and its identity: `"1 create notes"`. Never rename one that has run.
    public let name: String
    /// The change, on the connection of its transaction.
    public let up: @Sendable (any SQLDatabase) async throws -> Void

    /// A migration named `name` that does `up`.
    public init(_ name: String, up: @escaping @Sendable (any SQLDatabase) async throws -> Void) {
        self.name = name
        self.up = up
    }
}
