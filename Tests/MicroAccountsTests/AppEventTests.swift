import Foundation
import Micro
@testable import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// The app's own events: recorded from a route with the actor, address and browser of the
/// request, listed on the audit's app events page (filters, pages, JSON), apart from the
/// accounts' security activity, in memory and in a SQLite file.
@Suite struct AppEventTests {
    enum LogKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case memory, sqlite
        var testDescription: String { rawValue }
    }

    private static let json: HttpHeaders = ["Accept": "application/json"]

    /// An app whose `ann` is an admin and `user` is not; `POST /samples/:code` records an event.
    private func makeApp(_ kind: LogKind, folder: TemporaryFolder) async throws -> (App, Database?, any AppEventLog) {
        try folder.write("views/layout.mustache", "<main>{{{yield}}}</main>")
        let app = isolatedApp { $0.views = folder.file("views") }
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann", roles: ["admin"])
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        var database: Database?
        let accounts: Accounts
        switch kind {
        case .memory: accounts = Accounts()
        case .sqlite:
            let opened = try await Database.sqlite(path: folder.file("app.db"))
            accounts = Accounts(database: opened)
            database = opened
        }
        app.use(accounts)
        app.post("/samples/:code") { request in
            try request.authenticate()
            try await request.recordAppEvent(
                request.params["kind"] ?? "sample_updated", subject: request.params["subject"] ?? "sample \(request.params["code"] ?? "")",
                detail: request.params["detail"] ?? "")
            return "ok"
        }
        return (app, database, accounts.appEvents)
    }

    @Test(arguments: LogKind.allCases) func aRouteRecordsWhoWhatAndFromWhere(_ kind: LogKind) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database, _) = try await makeApp(kind, folder: folder)
        defer { Task { await database?.shutdown() } }
        let staff = TestClient(app)
        staff.remoteAddress = "192.0.2.7"
        try await staff.signIn("user", "secret123")
        // The client names neither the actor nor the address: a field or a forwarded header is no use.
        let answer = try await staff.post(
            "/samples/S-17", form: ["detail": "status received → tested", "username": "ann"],
            headers: ["User-Agent": "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "X-Forwarded-For": "203.0.113.9"])
        #expect(answer.text == "ok")
        let admin = TestClient(app)
        try await admin.signIn("ann", "ann-password")
        let events = try await admin.get("/admin/audit/app", headers: Self.json).decode([[String: String]].self)
        #expect(events.count == 1)
        #expect(events.first?["user"] == "user" && events.first?["kind"] == "sample_updated" && events.first?["subject"] == "sample S-17")
        #expect(events.first?["detail"] == "status received → tested")
        #expect(events.first?["address"] == "192.0.2.7" && events.first?["browser"] == "Firefox 128 on Linux")
        // Not in the user's own security activity, nor among the accounts' events.
        #expect(!(try await staff.get("/account/activity").text.contains("sample_updated")))
        #expect(!(try await admin.get("/admin/audit").text.contains("sample_updated")))
        #expect(try await admin.get("/admin/audit").text.contains(#"href="/admin/audit/app""#))
        // An admin's page only.
        #expect(try await staff.get("/admin/audit/app").status == .forbidden)
    }

    @Test(arguments: LogKind.allCases) func filtersAndPages(_ kind: LogKind) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database, _) = try await makeApp(kind, folder: folder)
        defer { Task { await database?.shutdown() } }
        let staff = TestClient(app)
        try await staff.signIn("user", "secret123")
        for number in 1...220 {
            _ = try await staff.post("/samples/S-\(number % 3)", form: ["kind": number.isMultiple(of: 2) ? "sample_tested" : "sample_received"])
        }
        let admin = TestClient(app)
        try await admin.signIn("ann", "ann-password")
        let first = try await admin.get("/admin/audit/app")
        #expect(first.text.components(separatedBy: "data-app-event=").count - 1 == 100)
        #expect(first.text.contains(#"rel="next" href="/admin/audit/app?page=2""#) && !first.text.contains(#"rel="prev""#))
        let third = try await admin.get("/admin/audit/app?page=3")
        #expect(third.text.components(separatedBy: "data-app-event=").count - 1 == 20)
        #expect(third.text.contains(#"rel="prev" href="/admin/audit/app?page=2""#) && !third.text.contains(#"rel="next""#))
        let tested = try await admin.get("/admin/audit/app?kind=sample_tested&subject=sample%20S-0", headers: Self.json).decode([[String: String]].self)
        #expect(tested.count == 36 && tested.allSatisfy { $0["kind"] == "sample_tested" && $0["subject"] == "sample S-0" })
        // The filters are kept in the form and in the page links (110 events of the kind: two pages).
        let filtered = try await admin.get("/admin/audit/app?kind=sample_received")
        #expect(filtered.text.contains(#"value="sample_received""#))
        #expect(filtered.text.contains(#"rel="next" href="/admin/audit/app?page=2&amp;kind=sample_received""#), "\(filtered.text.suffix(400))")
        let filteredSecond = try await admin.get("/admin/audit/app?page=2&kind=sample_received")
        #expect(filteredSecond.text.components(separatedBy: "data-app-event=").count - 1 == 10)
        // A page out of range or negative: the nearest page; not a number: a 400, never a 500.
        for page in ["-3", "99999999999999999999", "0", "9999"] {
            let answer = try await admin.get("/admin/audit/app?page=\(page)")
            #expect(answer.status == .ok, "\(page)")
        }
        #expect(try await admin.get("/admin/audit/app?page=abc").status == .badRequest)
        #expect(try await admin.get("/admin/audit/app?page=9999").text.contains("No app events"))
    }

    @Test(arguments: LogKind.allCases) func fieldsBeyondTheirBoundsRecordNothingAndSaySo(_ kind: LogKind) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database, log) = try await makeApp(kind, folder: folder)
        defer { Task { await database?.shutdown() } }
        let cases: [(kind: String, subject: String, detail: String, says: String)] = [
            ("", "s", "", "kind"),
            (String(repeating: "k", count: 65), "s", "", "kind"),
            ("sample updated", "s", "", "kind"),
            ("sample_ü", "s", "", "kind"),
            ("k", String(repeating: "s", count: 201), "", "subject"),
            ("k", "s", String(repeating: "d", count: 2001), "detail"),
            // Bounded in Unicode scalars: one letter with a thousand marks is a thousand and one.
            ("k", "s" + String(repeating: "\u{301}", count: 200), "", "subject"),
        ]
        for item in cases {
            #expect(throws: AppEventError.self) { try AppEventError.check(kind: item.kind, subject: item.subject, detail: item.detail) }
            do {
                try AppEventError.check(kind: item.kind, subject: item.subject, detail: item.detail)
            } catch {
                #expect(error.message.contains(item.says), "\(error.message)")
            }
        }
        let staff = TestClient(app)
        try await staff.signIn("user", "secret123")
        // From a route: the app's error, and nothing recorded.
        let refused = try await staff.post("/samples/S-1", form: ["kind": "bad kind"])
        #expect(refused.status == .internalServerError)
        #expect(try await log.events(kind: String?.none, subject: String?.none, offset: 0, limit: 10).isEmpty)
        // At the bounds: recorded whole.
        let detail = String(repeating: "é", count: 2000)
        #expect(try await staff.post("/samples/S-1", form: ["kind": String(repeating: "k", count: 64), "detail": detail]).text == "ok")
        #expect(try await log.events(kind: String?.none, subject: String?.none, offset: 0, limit: 10).first?.detail == detail)
    }

    @Test func hostileTextIsShownEscapedInHtmlAndJson() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database, _) = try await makeApp(.sqlite, folder: folder)
        defer { Task { await database?.shutdown() } }
        let staff = TestClient(app)
        try await staff.signIn("user", "secret123")
        let hostile = "<script>alert(1)</script> \"quoted\" e\u{301}\u{301}\u{301} \u{202E}evil"
        #expect(try await staff.post("/samples/x", form: ["subject": "sample <b>x</b>", "detail": hostile]).text == "ok")
        let admin = TestClient(app)
        try await admin.signIn("ann", "ann-password")
        let page = try await admin.get("/admin/audit/app").text
        #expect(!page.contains("<script>") && !page.contains("<b>x</b>"))
        #expect(page.contains("&lt;script&gt;"))
        // The right-to-left override is shown as an escape: it cannot reverse the row.
        #expect(!page.unicodeScalars.contains("\u{202E}"))
        #expect(page.contains(#"\u{202E}evil"#))
        // The JSON keeps the text as it was recorded: its reader escapes for its own display.
        let events = try await admin.get("/admin/audit/app", headers: Self.json).decode([[String: String]].self)
        #expect(events.first?["detail"] == hostile && events.first?["subject"] == "sample <b>x</b>")
    }

    @Test func theDatabaseLogKeepsEverythingUnlessTheAppSaysOtherwise() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Database.sqlite(path: folder.file("app.db"))
        defer { Task { await database.shutdown() } }
        try await database.migrate(DatabaseAppEventLog.migrations)
        let event = { (at: Int64) in AppEvent(username: "ann", kind: "k", subject: "s", detail: "", at: at, address: "", browser: "") }
        let kept = DatabaseAppEventLog(database)
        let now: Int64 = 1_800_000_000
        for day in 0..<3 { try await kept.record(event(now - Int64(day) * 400 * 86_400)) }
        #expect(try await kept.events(kind: "k", subject: nil, offset: 0, limit: 10).count == 3)
        // With a retention: what is older goes at the next sweep.
        let pruned = DatabaseAppEventLog(database, retention: .seconds(365 * 86_400))
        try await pruned.record(event(now))
        #expect(try await pruned.events(kind: String?.none, subject: String?.none, offset: 0, limit: 10).map(\.at).allSatisfy { $0 >= now - 365 * 86_400 })
        // With a row limit: the newest that many.
        let bounded = DatabaseAppEventLog(database, rowLimit: 2)
        try await bounded.record(event(now))
        #expect(try await bounded.events(kind: String?.none, subject: String?.none, offset: 0, limit: 10).count == 2)
    }
}

