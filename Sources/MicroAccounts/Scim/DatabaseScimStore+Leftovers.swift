import MicroCore
import SQLKit

extension DatabaseScimStore {
    /// Forgets the client's id and the profile SCIM kept for the user `username` (who was
    /// removed, by SCIM, the users page or `remove-user`), so that a later holder of the name
    /// is not answered with either; inside any transaction the caller has open on `database`.
    /// Nothing where SCIM never made its tables.
    static func forget(_ username: String, in database: Database) async throws {
        try await database.transaction { sql in
            guard try await hasMigration("micro 2 scim external ids", sql) else { return }
            try await sql.delete(from: "micro_scim_external_ids").where("kind", .equal, "User").where("id", .equal, username).run()
            guard try await hasMigration("micro 3 scim profiles", sql) else { return }
            try await sql.delete(from: "micro_scim_profiles").where("username", .equal, username).run()
        }
    }

    /// Whether `name` ran on the database: SCIM's tables exist only where it was turned on.
    private static func hasMigration(_ name: String, _ sql: any SQLDatabase) async throws -> Bool {
        try await sql.select().column("name").from("micro_migrations").where("name", .equal, name).first() != nil
    }
}
