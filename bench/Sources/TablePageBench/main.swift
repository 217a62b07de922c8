// A table's list page from `app.tablePages` against a hand-written route that renders the same
// rows in the same template: what the declaration costs per request, apart from the network
// stack's (`App.respond`, no socket). One app, one SQLite file of 200 items, a signed-in
// session; `/items` is the table pages' list (25 rows, sorted by name), `/hand` reads the same
// page with sql-kit's builder and renders it with a copy of the built-in template, the way
// "The app's own data" article writes a list. Rounds alternate the two; the table gives the
// median round's CPU per request and `/items`' against `/hand`'s.
// Run it from the repository's root:
// `swift build -c release --package-path bench --product TablePageBench && bench/.build/release/TablePageBench`.
import Foundation
import Micro
import MicroTesting

/// This process's CPU time (user plus system), in seconds.
func cpuTime() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

let environment = ProcessInfo.processInfo.environment
let requests = Int(environment["REQUESTS"] ?? "") ?? 2_000
let rounds = Int(environment["ROUNDS"] ?? "") ?? 7

enum Kind: String, Codable, Sendable, CaseIterable { case laptop, scope, projector }
struct Item: Codable, Sendable {
    var id: Int?
    var name: String
    var kind: Kind
    var location: String?
    var stock: Int
    var bookable: Bool
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("table-page-\(getpid())")
try FileManager.default.createDirectory(at: folder.appendingPathComponent("views/hand"), withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
try "<!DOCTYPE html><title>{{title}}</title><main>{{{yield}}}</main>".write(to: folder.appendingPathComponent("views/layout.mustache"), atomically: true, encoding: .utf8)
try TablePageTemplates.list.write(to: folder.appendingPathComponent("views/hand/list.mustache"), atomically: true, encoding: .utf8)
let users = try SqliteUserStore(path: folder.appendingPathComponent("users.db").path, create: true)
try users.save(username: "ann", passwordHash: try Password.hash("bench-password", cost: 4), name: "Ann", roles: ["staff"])

let database = try await Database.sqlite(path: folder.appendingPathComponent("app.db").path)
database.migrations.add("1 items") { sql in
    try await sql.create(table: "items")
        .column("id", type: .bigint, .primaryKey).column("name", type: .text, .notNull).column("kind", type: .text, .notNull)
        .column("location", type: .text).column("stock", type: .bigint, .notNull).column("bookable", type: .custom(SQLRaw("BOOLEAN")), .notNull)
        .run()
    for index in 0..<200 {
        try await sql.insert(into: "items").model(
            Item(name: "Item \(String(format: "%03d", index))", kind: Kind.allCases[index % 3], location: index % 4 == 0 ? nil : "Lab \(index % 7)",
                 stock: index, bookable: index % 2 == 0), keyEncodingStrategy: .convertToSnakeCase
        ).run()
    }
}

var settings = Settings()
settings.environment = .production
settings.accessLog = false
settings.views = folder.appendingPathComponent("views").path
settings.sessions.secret = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
let app = App(settings: settings)
app.use(database)
app.use(Authentication(users: users))
app.use(Accounts())

var items = TablePages(Item.self, table: "items", title: "Items")
items.listed = ["name", "kind", "location", "stock"]
items.sortable = ["name"]
items.roles = TableRoles(view: ["staff"])
app.tablePages("/items", items)

// The same page by hand: the rows, their cells, the columns and the links the template shows.
app.get("/hand") { request in
    try request.authorize(anyOf: "staff")
    let paging = try request.paging(size: 25)
    let page = paging.page(
        try await request.database.sql.select().columns("*").from("items").orderBy("name").orderBy("id")
            .limit(paging.limit).offset(paging.offset).all(decoding: Item.self, keyDecodingStrategy: .convertFromSnakeCase))
    let rows = page.items.map { item -> [String: Any] in
        let id = item.id ?? 0
        let cells = [item.name, item.kind.rawValue, item.location ?? "", String(item.stock)].map { ["text": $0] }
        return ["id": id, "link": request.url("/items/\(id)"), "cells": cells]
    }
    let columns: [[String: Any]] = [
        ["label": "Name", "name": "name", "sortLink": request.url("/hand?order=desc&sort=name"), "sorted": "ascending"],
        ["label": "Kind", "name": "kind"], ["label": "Location", "name": "location"], ["label": "Stock", "name": "stock"],
    ]
    return try request.render("hand/list", [
        "title": "Items", "columns": columns, "rows": rows, "page": page.links, "action": request.url("/hand"), "q": "",
        "searchable": false, "filters": [[String: Any]](), "csvLink": request.url("/hand/export.csv"),
    ])
}

// A session, signed in once through the app's own form.
let client = TestClient(app)
let signedIn = try await client.signIn("ann", "bench-password")
guard let cookie = signedIn.headers["Set-Cookie"].first(where: { $0.hasPrefix(settings.sessions.cookieName + "=") })?.split(separator: ";").first else {
    fatalError("No session cookie after signing in: \(signedIn.status)")
}
let headers: HttpHeaders = ["Host": "localhost", "Cookie": String(cookie)]

/// `requests` requests of `path`, after a warm-up: CPU microseconds per request.
func measure(_ path: String) async throws -> Double {
    for _ in 0..<100 {
        let response = try await app.respond(method: .GET, uri: path, headers: headers)
        guard response.status == .ok else { fatalError("\(path): \(response.status)") }
    }
    let cpu = cpuTime()
    for _ in 0..<requests { _ = try await app.respond(method: .GET, uri: path, headers: headers) }
    return (cpuTime() - cpu) / Double(requests) * 1e6
}

let paths = ["/items", "/hand"]
var results: [String: [Double]] = [:]
for round in 0..<rounds {
    for offset in 0..<paths.count {
        let path = paths[(round + offset) % paths.count]
        results[path, default: []].append(try await measure(path))
    }
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
print("\(rounds) rounds of \(requests) requests per page; medians")
print("| page | CPU µs/request |")
print("| --- | ---: |")
for path in paths { print("| \(path) | \(String(format: "%.1f", median(results[path]!))) |") }
print("/items against /hand, CPU: \(String(format: "%.3f", median(results["/items"]!) / median(results["/hand"]!)))")
await database.shutdown()
