// Hummingbird's side of bench/peers/run.sh: the same two endpoints as Micro's bench app
// (bench/Sources/MicroBench), written the way the Hummingbird 2 documentation and examples
// write them.
//
// GET  /hello   "Hello, World!" as text/plain; charset=utf-8.
// POST /signin  username and password as a form; the bcrypt hash from bench/credentials.yml is
//               checked (HummingbirdBcrypt, on NIO's thread pool), and on a match the username goes
//               into a new session (hummingbird-auth's SessionMiddleware over Hummingbird's
//               MemoryPersistDriver: the cookie holds a random id, the data stays in the process).
//               303 to /page; a wrong password gets 401.
// GET  /page    for a signed-in session only (SessionAuthenticator + requireIdentity, else 401):
//               bench/views/page.mustache rendered inside bench/views/layout.mustache at its
//               {{{yield}}}, with the same data as Micro's /page (title, the user's name, three items).
//
// Usage: HummingbirdBench  (PORT, default 8080; HOST, default 127.0.0.1; EXTRA_ROUTES and
// PAGE_ITEMS as MicroBench reads them, for bench/growth.sh), from the repository's root, where
// bench/views and bench/credentials.yml are. No access log, as for the other servers.
import Foundation
import Hummingbird
import HummingbirdAuth
import HummingbirdBcrypt
import Logging
import Mustache
import NIOPosix

/// A user of bench/credentials.yml; `name` is the username capitalized, as Micro shows it.
struct BenchUser: Sendable {
    let username: String
    let name: String
    let passwordHash: String
}

/// The session holds the signed-in username; the identity is the user it names.
typealias BenchContext = BasicSessionRequestContext<String, BenchUser>

/// The users of bench/credentials.yml (a list of `username:` / `password_hash:` pairs). A small
/// reader for this one file's shape: the peer needs no YAML library for it.
func loadUsers(_ file: String) throws -> [String: BenchUser] {
    let text = try String(contentsOfFile: file, encoding: .utf8)
    var users: [String: BenchUser] = [:]
    var username: String?
    for line in text.split(separator: "\n") {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("- username:") {
            username = trimmed.dropFirst("- username:".count).trimmingCharacters(in: .whitespaces).lowercased()
        } else if trimmed.hasPrefix("password_hash:"), let name = username {
            let hash = trimmed.dropFirst("password_hash:".count).trimmingCharacters(in: .whitespaces)
            users[name] = BenchUser(username: name, name: name.prefix(1).uppercased() + name.dropFirst(), passwordHash: hash)
            username = nil
        }
    }
    guard !users.isEmpty else { throw BenchError("\(file): no users found") }
    return users
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// An HTML page as a response.
struct Html: ResponseGenerator {
    let text: String

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }
}

/// The sign-in form's fields.
struct SignInForm: Decodable {
    let username: String
    let password: String
}

let environment = ProcessInfo.processInfo.environment
let port = environment["PORT"].flatMap(Int.init) ?? 8080
let host = environment["HOST"] ?? "127.0.0.1"

let users = try loadUsers("bench/credentials.yml")
let views = try await MustacheLibrary(directory: "bench/views")
guard views.getTemplate(named: "page") != nil, views.getTemplate(named: "layout") != nil else {
    throw BenchError("bench/views: page.mustache and layout.mustache are needed (run from the repository's root)")
}
/// The list /page shows: PAGE_ITEMS items (3 unless set), as Micro's bench app makes it.
let items: [String] = {
    let tools = ["Date Conversion", "Data Encoding", "Data Encryption"]
    let count = environment["PAGE_ITEMS"].flatMap(Int.init) ?? 3
    return (0..<max(0, count)).map { $0 < tools.count ? tools[$0] : "Item \($0 + 1)" }
}()
/// A hash to check an unknown username against, so that it costs as much as a known one (as Micro does).
let dummyHash = Bcrypt.hash(UUID().uuidString, cost: 12)

let sessions = MemoryPersistDriver()
let router = Router(context: BenchContext.self)
router.add(middleware: SessionMiddleware(storage: sessions, defaultSessionExpiration: .seconds(600)))

// EXTRA_ROUTES=N more routes before /hello, of the shapes Micro's bench app adds
// (bench/Sources/BenchRoutes/ExtraRoutes.swift), for bench/growth.sh.
for index in 0..<(environment["EXTRA_ROUTES"].flatMap(Int.init) ?? 0) {
    let name = "r\(index)"
    let answer: @Sendable (Request, BenchContext) async throws -> String = { _, _ in name }
    if index % 100 == 99 {
        router.get("/:section/\(name)", use: answer)
        continue
    }
    switch index % 10 {
    case 0: router.get("/\(name)/items/:id", use: answer)
    case 1: router.post("/\(name)/items", use: answer)
    case 2: router.get("/\(name)", use: answer)
    case 3: router.get("/\(name)/files/**", use: answer)
    case 4: router.put("/\(name)/items/:id", use: answer)
    case 5: router.delete("/\(name)/items/:id", use: answer)
    case 6: router.get("/\(name)/items/:id/edit", use: answer)
    case 7: router.patch("/\(name)/items/:id", use: answer)
    case 8: router.get("/\(name)/about", use: answer)
    default: router.get("/api/v1/\(name)/:id", use: answer)
    }
}

router.get("/hello") { _, _ in
    "Hello, World!"
}

router.post("/signin") { request, context -> Response in
    let body = try await request.body.collect(upTo: 16 * 1024)
    let form = try URLEncodedFormDecoder().decode(SignInForm.self, from: String(buffer: body))
    let user = users[form.username.lowercased()]
    let hash = user?.passwordHash ?? dummyHash
    let matches = try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(form.password, hash: hash) }
    guard let user, matches else { throw HTTPError(.unauthorized, message: "Wrong username or password.") }
    context.sessions.createSession(user.username)
    return Response(status: .seeOther, headers: [.location: "/page"])
}

router.group()
    .add(middleware: SessionAuthenticator(context: BenchContext.self) { (username: String, _) in users[username] })
    .get("/page") { _, context -> Html in
        let user = try context.requireIdentity()
        let values: [String: Any] = ["title": "Bench page", "name": user.name, "items": items]
        guard let page = views.render(values, withTemplate: "page") else { throw HTTPError(.internalServerError) }
        var outer = values
        outer["yield"] = page
        return Html(text: views.render(outer, withTemplate: "layout") ?? page)
    }

var logger = Logger(label: "HummingbirdBench")
logger.logLevel = .warning
let app = Application(
    router: router,
    configuration: .init(address: .hostname(host, port: port), serverName: nil),
    services: [sessions],
    logger: logger
)
print("HummingbirdBench listening on http://\(host):\(port) (pid \(getpid()))")
try await app.runService()
