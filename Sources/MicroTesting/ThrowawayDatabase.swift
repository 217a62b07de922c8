import Foundation
import MicroCore

/// Runs `body` with a new, empty SQLite database of its own, in a file under the temporary
/// folder that is closed and removed after, whatever happened: one per test, so that tests run
/// in parallel never see each other's rows.
///
/// ```swift
/// @Test func aSampleIsRecorded() async throws {
///     try await withThrowawayDatabase { database in
///         let app = makeApp(database: database)
///         ...
///     }
/// }
/// ```
public func withThrowawayDatabase<T>(_ body: (Database) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let database = try await Database.sqlite(path: folder.appendingPathComponent("test.db").path)
    do {
        let result = try await body(database)
        await database.shutdown()
        return result
    } catch {
        await database.shutdown()
        throw error
    }
}
