// A route that reads one row, through Micro's data layer and through the driver beneath it:
// the app's own cost per request (`App.respond`, no socket), so the row read is not lost in the
// network stack's. Four routes of one app over one SQLite file of 100 users:
//   /none/NAME     answers the name without reading (the route's floor);
//   /builder/NAME  reads the row with sql-kit's builder through `request.database` ("The app's own data" article's way);
//   /raw/NAME      reads it with a raw statement through `request.database` (values still bound);
//   /driver/NAME   reads it with SQLiteNIO's own query on a connection of its own (no data layer);
//   /kit/NAME, /kitraw/NAME  read it as /builder and /raw do, with sql-kit straight over that
//                  connection: what sql-kit costs, apart from what Micro's data layer adds.
// Rounds alternate the routes, so that the machine's noise falls on each alike; the table gives
// the median round's CPU and wall time per request, and each route's CPU against /driver's.
// Run it from the repository's root:
// `swift build -c release --package-path bench --product RouteRowBench && bench/.build/release/RouteRowBench`.
import Foundation
import Micro
import SQLiteKit

/// This process's CPU time (user plus system), in seconds.
func cpuTime() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

let environment = ProcessInfo.processInfo.environment
let requests = Int(environment["REQUESTS"] ?? "") ?? 5_000
let rounds = Int(environment["ROUNDS"] ?? "") ?? 7
let hash = "$2b$04$" + String(repeating: "a", count: 53)

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("route-row-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let path = folder.appendingPathComponent("users.db").path

let database = try await Database.sqlite(path: path)
database.migrations.add("1 users") { sql in
    try await sql.raw("CREATE TABLE users (username TEXT NOT NULL UNIQUE COLLATE NOCASE, password_hash TEXT NOT NULL, name TEXT, roles TEXT)").run()
    for index in 0..<100 {
        try await sql.insert(into: "users").columns("username", "password_hash", "name", "roles")
            .values(SQLBind("user\(index)"), SQLBind(hash), SQLBind("User \(index)"), SQLBind(index == 0 ? "admin" : nil as String?))
            .run()
    }
}
let driver = try await SQLiteConnection.open(storage: .file(path: path)).get()

struct UserRow: Decodable { let username: String; let password_hash: String; let name: String?; let roles: String? }

var settings = Settings()
settings.environment = .production
settings.accessLog = false
settings.views = nil
settings.sessions.secret = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
let app = App(settings: settings)
app.use(database)
app.get("/none/:name") { request in request.params["name"] ?? "" }
app.get("/builder/:name") { request in
    guard let row = try await request.database.sql.select().columns("username", "password_hash", "name", "roles").from("users")
        .where("username", .equal, request.params["name"] ?? "").first(decoding: UserRow.self)
    else { throw HttpError(.notFound, "No such user.") }
    return row.name ?? row.username
}
app.get("/raw/:name") { request in
    let name = request.params["name"] ?? ""
    guard let row = try await request.database.sql.raw("SELECT username, password_hash, name, roles FROM users WHERE username = \(bind: name)").first()
    else { throw HttpError(.notFound, "No such user.") }
    return try row.decode(column: "name", as: String?.self) ?? name
}
app.get("/driver/:name") { request in
    let name = request.params["name"] ?? ""
    guard let row = try await driver.query("SELECT username, password_hash, name, roles FROM users WHERE username = ?1", [SQLiteData.text(name)]).first
    else { throw HttpError(.notFound, "No such user.") }
    return row.column("name")?.string ?? name
}

app.get("/kit/:name") { request in
    guard let row = try await driver.sql().select().columns("username", "password_hash", "name", "roles").from("users")
        .where("username", .equal, request.params["name"] ?? "").first(decoding: UserRow.self)
    else { throw HttpError(.notFound, "No such user.") }
    return row.name ?? row.username
}
app.get("/kitraw/:name") { request in
    let name = request.params["name"] ?? ""
    guard let row = try await driver.sql().raw("SELECT username, password_hash, name, roles FROM users WHERE username = \(bind: name)").first()
    else { throw HttpError(.notFound, "No such user.") }
    return try row.decode(column: "name", as: String?.self) ?? name
}

// `ROUTES=raw,driver` measures those alone (under callgrind, one at a time).
let routes = environment["ROUTES"].map { $0.split(separator: ",").map(String.init) } ?? ["none", "builder", "kit", "raw", "kitraw", "driver"]
let headers: HttpHeaders = ["Host": "localhost"]

/// `requests` requests of `route`, after a warm-up: CPU and wall microseconds per request.
func measure(_ route: String) async throws -> (cpu: Double, wall: Double) {
    for index in 0..<200 {
        let response = try await app.respond(method: .GET, uri: "/\(route)/user\(index % 100)", headers: headers)
        guard response.status == .ok else { fatalError("/\(route): \(response.status)") }
    }
    let cpu = cpuTime()
    let start = ContinuousClock.now
    for index in 0..<requests { _ = try await app.respond(method: .GET, uri: "/\(route)/user\(index % 100)", headers: headers) }
    let wall = ContinuousClock.now - start
    let seconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
    return ((cpuTime() - cpu) / Double(requests) * 1e6, seconds / Double(requests) * 1e6)
}

var results: [String: [(cpu: Double, wall: Double)]] = [:]
for round in 0..<rounds {
    // Each round starts with another route, so that no route always follows the same one.
    for offset in 0..<routes.count {
        let route = routes[(round + offset) % routes.count]
        results[route, default: []].append(try await measure(route))
    }
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
let driverCpu = results["driver"].map { median($0.map(\.cpu)) } ?? .nan
print("\(rounds) rounds of \(requests) requests per route; medians")
print("| route | CPU µs/request | wall µs/request | CPU / driver's |")
print("| --- | ---: | ---: | ---: |")
for route in routes {
    let cpu = median(results[route]!.map(\.cpu))
    let wall = median(results[route]!.map(\.wall))
    print("| /\(route)/NAME | \(String(format: "%.1f", cpu)) | \(String(format: "%.1f", wall)) | \(String(format: "%.3f", cpu / driverCpu)) |")
}
// What Micro's data layer adds to sql-kit, each way of reading against sql-kit's own.
for (micro, kit) in [("builder", "kit"), ("raw", "kitraw")] {
    guard let ours = results[micro], let theirs = results[kit] else { continue }
    print("/\(micro) against /\(kit) (Micro's data layer over sql-kit alone), CPU: \(String(format: "%.3f", median(ours.map(\.cpu)) / median(theirs.map(\.cpu))))")
}
try await driver.close().get()
await database.shutdown()
