// Micro's own cost per request, without a socket: the time `App.respond` takes for a plain
// route, the same route for a client with a session cookie, and a page rendered in a layout.
// It isolates the framework from the network stack that bench/run.sh also measures. A row
// times swift-mustache alone rendering that page and layout with the same values: the floor
// under `/page` for a framework that renders with it as it comes; then Html.escape. The last table times a 1 MiB
// `application/x-www-form-urlencoded` body, as one field and as 524,288 empty fields
// (`a&a&...`): decoded alone (no limits) and posted without a CSRF token, against a copy of its
// bytes and the same bytes posted as `application/octet-stream`. The routes table times `/hello`
// and `/last` in apps with 0, 100 and 1,000 more routes (bench/routes.sh's shapes).
import Foundation
import BenchRoutes
@_spi(Fuzzing) import Micro
import Mustache

BenchRoutes.requireRepositoryRoot("InProcessBench")
var settings = Settings()
settings.environment = .production
settings.accessLog = false
settings.sessions.secret = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
let app = App(settings: settings)
BenchRoutes.install(in: app)

/// `elapsed` over `count`, in microseconds.
func microseconds(_ elapsed: Duration, per count: Int) -> Double {
    (Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12) / Double(count)
}

@Sendable func microseconds(_ path: String, cookie: String?, count: Int) async throws -> Double {
    var headers: HttpHeaders = ["Host": "localhost"]
    if let cookie { headers.add(name: "Cookie", value: cookie) }
    for _ in 0..<1000 { _ = try await app.respond(method: .GET, uri: path, headers: headers) }
    let start = ContinuousClock.now
    for _ in 0..<count { _ = try await app.respond(method: .GET, uri: path, headers: headers) }
    let elapsed = ContinuousClock.now - start
    return microseconds(elapsed, per: count)
}

/// swift-mustache alone: `page.mustache` with the route's values, then `layout.mustache` with the
/// page at `{{{yield}}}`, as `Request.render` does, but with no automatic values.
@Sendable func renderMicroseconds(count: Int) async throws -> Double {
    let library = try await MustacheLibrary(directory: "bench/views")
    let values = BenchRoutes.pageValues(name: "Bench User")
    var bytes = 0
    func render() {
        // Both templates exist (`requireRepositoryRoot`), so neither render is nil.
        var outer = values
        outer["yield"] = library.render(values, withTemplate: "page")
        bytes &+= library.render(outer, withTemplate: "layout")?.utf8.count ?? 0
    }
    for _ in 0..<1000 { render() }
    let start = ContinuousClock.now
    for _ in 0..<count { render() }
    let elapsed = ContinuousClock.now - start
    // The rendered output is used (so no render can be dropped as dead code), and checked.
    guard bytes > 0 else {
        FileHandle.standardError.write(Data("InProcessBench: swift-mustache rendered nothing from bench/views.\n".utf8))
        exit(1)
    }
    return microseconds(elapsed, per: count)
}

/// `count` renders of swift-mustache alone, as ``renderMicroseconds(count:)`` makes them, untimed:
/// bench/callgrind.sh counts the instructions of this function alone (callgrind's
/// `--toggle-collect`), the floor under `/page` for any framework on this library.
@inline(never) func mustacheRenders(_ library: MustacheLibrary, _ values: [String: Any], count: Int) -> Int {
    var bytes = 0
    for _ in 0..<count {
        var outer = values
        outer["yield"] = library.render(values, withTemplate: "page")
        bytes &+= library.render(outer, withTemplate: "layout")?.utf8.count ?? 0
    }
    return bytes
}

/// Runs `body` for at least `seconds` (and 5 times), after 3 unmeasured runs; microseconds per run.
func microseconds(atLeast seconds: Double = 1, _ body: () async throws -> Void) async rethrows -> Double {
    for _ in 0..<3 { try await body() }
    var runs = 0
    let start = ContinuousClock.now
    var elapsed = Duration.zero
    while runs < 5 || elapsed < .milliseconds(Int64(seconds * 1000)) {
        try await body()
        runs += 1
        elapsed = ContinuousClock.now - start
    }
    return microseconds(elapsed, per: runs)
}

/// The form rows: decoding alone, and `App.respond` for a POST without a CSRF token (a form the
/// app refuses, as an anonymous attacker's would be), against copying the bytes.
@Sendable func formRows() async throws {
    let size = 1 << 20
    let oneField = Array("a=".utf8) + [UInt8](repeating: UInt8(ascii: "b"), count: size - 2)
    let emptyFields = [UInt8]((0..<size).map { $0 % 2 == 0 ? UInt8(ascii: "a") : UInt8(ascii: "&") })
    var formSettings = Settings()
    formSettings.environment = .production
    formSettings.accessLog = false
    formSettings.sessions.secret = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    formSettings.publicFolder = nil
    let formApp = App(settings: formSettings)
    formApp.post("/form") { request in "\(request.params.form.count)" }
    var kept = 0
    func post(_ bytes: [UInt8], contentType: String) async throws {
        let headers: HttpHeaders = ["Host": "localhost", "Content-Type": contentType, "Content-Length": "\(bytes.count)"]
        let response = try await formApp.respond(method: .POST, uri: "/form", headers: headers, body: ByteBuffer(bytes: bytes))
        kept &+= Int(response.status.code)
    }
    print("")
    print("| 1 MiB form body | µs |")
    print("| --- | ---: |")
    let buffer = ByteBuffer(bytes: oneField)
    let copy = await microseconds { kept &+= Array(buffer.readableBytesView).count }
    print("| a copy of its bytes (`Array(buffer.readableBytesView)`) | \(String(format: "%.1f", copy)) |")
    for (label, bytes) in [("one field", oneField), ("524,288 empty fields", emptyFields)] {
        let decode = try await microseconds {
            // What a request does: the body as text, then its fields (here with no limits).
            kept &+= try FuzzingEntryPoints.urlEncoded(String(decoding: bytes, as: UTF8.self)).count
        }
        print("| decoded alone, \(label) | \(String(format: "%.1f", decode)) |")
        let posted = try await microseconds { try await post(bytes, contentType: "application/x-www-form-urlencoded") }
        print("| posted without a CSRF token, \(label) | \(String(format: "%.1f", posted)) |")
    }
    let octets = try await microseconds { try await post(oneField, contentType: "application/octet-stream") }
    print("| the same bytes posted as application/octet-stream | \(String(format: "%.1f", octets)) |")
    guard kept != 0 else { exit(1) }
}

/// `Html.escape` of `text`, the escaping of every `{{value}}` in Micro's pages.
func escapeMicroseconds(_ text: String, count: Int) -> Double {
    var bytes = 0
    for _ in 0..<1000 { bytes &+= Html.escape(text).utf8.count }
    let start = ContinuousClock.now
    for _ in 0..<count { bytes &+= Html.escape(text).utf8.count }
    let elapsed = ContinuousClock.now - start
    // The escaped text is used, so no call can be dropped as dead code.
    guard bytes > 0 else { exit(1) }
    return microseconds(elapsed, per: count)
}


/// The routes rows: `/hello` and `/last` in apps with 0, 100 and 1,000 more routes
/// (BenchRoutes.installExtraRoutes), as bench/routes.sh serves them, or only `counts`. The
/// apps take turns for five rounds and each cell is its fastest round, so that a burst of
/// other work on the machine does not land on one app alone.
@Sendable func routeRows(_ counts: [Int] = [0, 100, 1000]) async throws {
    var routesSettings = Settings()
    routesSettings.environment = .production
    routesSettings.accessLog = false
    routesSettings.sessions.secret = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    let apps = counts.map { count in
        let routesApp = App(settings: routesSettings)
        BenchRoutes.installExtraRoutes(count, in: routesApp)
        BenchRoutes.install(in: routesApp)
        BenchRoutes.installLastRoute(in: routesApp)
        return routesApp
    }
    let paths = ["/hello", "/last"]
    var best = [[Double]](repeating: [Double](repeating: .infinity, count: paths.count), count: counts.count)
    for _ in 0..<5 {
        for (row, routesApp) in apps.enumerated() {
            for (column, path) in paths.enumerated() {
                let elapsed = try await microseconds(atLeast: 0.4) {
                    for _ in 0..<1000 {
                        let response = try await routesApp.respond(method: .GET, uri: path, headers: ["Host": "localhost"])
                        guard response.status == .ok else { throw HttpError(.internalServerError, "\(path): \(response.status.code)") }
                    }
                }
                best[row][column] = min(best[row][column], elapsed / 1000)
            }
        }
    }
    print("")
    print("| extra routes | GET /hello µs | GET /last µs |")
    print("| ---: | ---: | ---: |")
    for (row, count) in counts.enumerated() {
        print("| \(count) | \(best[row].map { String(format: "%.3f", $0) }.joined(separator: " | ")) |")
    }
}

// `InProcessBench /page` times only the routes with that path (for a profiler); `InProcessBench
// form` only the form rows; `InProcessBench routes [N]` only the routes rows (or the row for N
// more routes, for a profiler); `InProcessBench mustache N` renders swift-mustache's page N
// times, untimed (for callgrind).
let only = CommandLine.arguments.dropFirst().first
let routeCounts = CommandLine.arguments.dropFirst(2).first.flatMap(Int.init).map { [$0] } ?? [0, 100, 1000]

// A synchronous main that parks its thread until the work is done, rather than top-level
// `await`: an async main ends in `dispatchMain()`, where Debian's valgrind (3.19) crashes.
let done = DispatchSemaphore(value: 0)
Task.detached {
    defer { done.signal() }
    do {
        try await runBenchmarks()
    } catch {
        FileHandle.standardError.write(Data("InProcessBench: \(error)\n".utf8))
        exit(1)
    }
}
done.wait()

// Off the main actor, as the server's event loops are.
@Sendable func runBenchmarks() async throws {
    if only == "mustache" {
        let library = try await MustacheLibrary(directory: "bench/views")
        let count = CommandLine.arguments.dropFirst(2).first.flatMap(Int.init) ?? 2000
        let bytes = mustacheRenders(library, BenchRoutes.pageValues(name: "Bench User"), count: count)
        print("\(count) renders, \(bytes) bytes")
        return
    }
    if only == "routes" {
        try await routeRows(routeCounts)
        return
    }
    if only != "form" {
        let login = try await app.respond(method: .GET, uri: "/login", headers: ["Host": "localhost"])
        let cookie = login.headers["Set-Cookie"].first?.split(separator: ";").first.map(String.init)
        print("| route | µs per request |")
        print("| --- | ---: |")
        for (label, path, cookie, count) in [
            ("GET /hello", "/hello", nil, 200_000), ("GET /hello with a session cookie", "/hello", cookie, 100_000),
            ("GET /page (layout, session)", "/page", cookie, 20_000),
        ] as [(String, String, String?, Int)] where only == nil || path == only {
            print("| \(label) | \(String(format: "%.2f", try await microseconds(path, cookie: cookie, count: count))) |")
        }
    }
    if only == nil {
        print("| swift-mustache alone: the same page and layout | \(String(format: "%.2f", try await renderMicroseconds(count: 20_000))) |")
        let text = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 23) + "<b>\"x\"</b>"
        for (label, value) in [("a 20-byte value with one `'` and one `&`", "O'Brien & Sons Ltd."), ("1 KiB of text, 4 characters to escape", text)] {
            print("| Html.escape: \(label) | \(String(format: "%.3f", escapeMicroseconds(value, count: 200_000))) |")
        }
    }
    if only == nil || only == "form" { try await formRows() }
    if only == nil { try await routeRows() }
}
