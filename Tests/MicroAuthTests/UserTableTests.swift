@testable import MicroAuth
import MicroCore
import MicroTestSupport
import Testing

/// `UserTable` over a SQLite file: what the SQL text of a statement may name.
@Suite struct UserTableTests {
    @Test func aStatementNamingAParameterItDoesNotHaveIsAnErrorNotACrash() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Database.sqlite(path: folder.file("users.db"))
        defer { Task { await database.shutdown() } }
        for statement in SqliteUserStore.schema { try await database.sql.raw(SQLQueryString(statement)).run() }
        let table = UserTable(database.sql, source: "users.db") { _, _ in }
        let statement = ManagedUserSql.Statement(sql: "UPDATE users SET roles = ?2 WHERE username = ?1", binds: ["ann"])
        await #expect(throws: UserStoreError.self) { try await table.change("ann", statement) }
        let unnumbered = ManagedUserSql.Statement(sql: "UPDATE users SET roles = ? WHERE username = ?1", binds: ["ann"])
        await #expect(throws: UserStoreError.self) { try await table.change("ann", unnumbered) }
    }
}
