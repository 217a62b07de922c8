// One row read by its key, four ways, over the same SQLite file (100 users):
//  1. the hand-written driver Micro's users store used (RawSqlite.swift, as SqliteConnection:
//     a persistent prepared statement, under a lock);
//  2. sql-kit's builder over sqlite-kit (`SQLiteConnection.sql()`), the data layer's way;
//  3. sql-kit with a raw statement (its values still bound), a column read by name;
//  4. SQLiteNIO's own query over the same connection, without sql-kit.
// It depends on sqlite-kit and libsqlite3 alone, not on Micro, so that a release build of it
// stays short.
// Each reads `ROWS` times one after the other (the latency of one read), then `ROWS` reads
// from `TASKS` tasks at once (what a busy server gets). Wall time and CPU time per read.
// Run it: `swift build -c release --package-path bench --product RowReadBench && bench/.build/release/RowReadBench`.
import Foundation
import NIOConcurrencyHelpers
import SQLiteKit

/// This process's CPU time (user plus system) so far.
func cpuTime() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

let environment = ProcessInfo.processInfo.environment
let rows = Int(environment["ROWS"] ?? "") ?? 20_000
let tasks = Int(environment["TASKS"] ?? "") ?? 8
let hash = "$2b$04$" + String(repeating: "a", count: 53)

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("row-read-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let path = folder.appendingPathComponent("users.db").path
let setup = try await SQLiteConnection.open(storage: .file(path: path)).get()
_ = try await setup.query("CREATE TABLE users (username TEXT NOT NULL UNIQUE COLLATE NOCASE, password_hash TEXT NOT NULL, name TEXT, roles TEXT)").get()
for index in 0..<100 {
    let values: [SQLiteData] = [.text("user\(index)"), .text(hash), .text("User \(index)"), index == 0 ? .text("admin") : .null]
    _ = try await setup.query("INSERT INTO users VALUES (?1, ?2, ?3, ?4)", values).get()
}
try await setup.close().get()
let raw = RawSqlite(path: path)
let rawLock = NIOLock()

struct Result { let wall: Double; let cpu: Double }

/// Times `count` reads, one after the other or spread over `tasks` tasks.
func measure(_ count: Int, tasks: Int, _ read: @escaping @Sendable (Int) async throws -> Void) async throws -> Result {
    for index in 0..<min(count, 1000) { try await read(index) }  // warm-up
    let cpu = cpuTime()
    let start = ContinuousClock.now
    if tasks == 1 {
        for index in 0..<count { try await read(index) }
    } else {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask { for index in stride(from: task, to: count, by: tasks) { try await read(index) } }
            }
            try await group.waitForAll()
        }
    }
    let wall = ContinuousClock.now - start
    let seconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
    return Result(wall: seconds / Double(count) * 1e6, cpu: (cpuTime() - cpu) / Double(count) * 1e6)
}

let connection = try await SQLiteConnection.open(storage: .file(path: path)).get()
let sql = connection.sql(queryLogLevel: nil)

struct Row: Decodable { let username: String; let password_hash: String; let name: String?; let roles: String? }

let ways: [(String, @Sendable (Int) async throws -> Void)] = [
    ("hand-written C calls (as SqliteConnection)", { index in
        guard rawLock.withLock({ raw.find("user\(index % 100)") }) != nil else { fatalError("no row") }
    }),
    ("sql-kit over sqlite-kit", { index in
        guard try await sql.select().columns("username", "password_hash", "name", "roles").from("users")
            .where("username", .equal, "user\(index % 100)").first(decoding: Row.self) != nil else { fatalError("no row") }
    }),
    ("sql-kit, a raw statement read by column", { index in
        guard let row = try await sql.raw("SELECT username, password_hash, name, roles FROM users WHERE username = \(bind: "user\(index % 100)")").first(),
            (try row.decode(column: "password_hash", as: String.self)).count == 60
        else { fatalError("no row") }
    }),
    ("SQLiteNIO query", { index in
        guard try await connection.query(
            "SELECT username, password_hash, name, roles FROM users WHERE username = ?1", [.text("user\(index % 100)")]).first != nil
        else { fatalError("no row") }
    }),
]

print("| way | one at a time: wall µs/read | CPU µs/read | \(tasks) tasks: wall µs/read | CPU µs/read |")
print("| --- | ---: | ---: | ---: | ---: |")
// `WAY=2` runs the second way alone (for a profiler).
let only = Int(environment["WAY"] ?? "")
for (number, (name, read)) in ways.enumerated() where only == nil || only == number + 1 {
    let serial = try await measure(rows, tasks: 1, read)
    let parallel = try await measure(rows, tasks: tasks, read)
    print("| \(name) | \(String(format: "%.1f", serial.wall)) | \(String(format: "%.1f", serial.cpu)) | \(String(format: "%.1f", parallel.wall)) | \(String(format: "%.1f", parallel.cpu)) |")
}
try await connection.close().get()
